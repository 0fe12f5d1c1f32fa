package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery.Listener;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service's provider list as a consumer sees it, fed whole by a {@link ServiceWatch} (the
 * per-service layout) or one change at a time by the {@link InstanceDirectory}, and passed to the
 * listener through the {@link ShrinkGuard} and the empty-list grace: a sudden empty list is held
 * for the grace, since a provider replacing its node after a session expiry shows watchers a
 * deletion before the creation. Thread-safe: every change takes this list's lock.
 */
final class ProviderList implements InstanceDirectory.Target {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    private final ServiceKey key;
    private final Listener listener;
    private final ZookeeperSession session;
    private final long emptyListGraceMillis;
    /** The list as the registry last gave it, believed; {@link #instances} adds what the guard holds. */
    private final AddressIndex listed = new AddressIndex();

    private final ShrinkGuard guard;
    private final CountDownLatch initialized = new CountDownLatch(1);
    private volatile List<ServiceInstance> instances = List.of();
    private ScheduledFuture<?> pendingEmpty; // guarded by this
    private volatile boolean closed; // written under this, as pendingEmpty

    ProviderList(
            ServiceKey key,
            Listener listener,
            ZookeeperSession session,
            long emptyListGraceMillis,
            double shrinkGuard,
            long shrinkWindowNanos,
            AtomicBoolean holdLogged) {
        this.key = key;
        this.listener = listener;
        this.session = session;
        this.emptyListGraceMillis = emptyListGraceMillis;
        this.guard = new ShrinkGuard(key, session, shrinkGuard, shrinkWindowNanos, holdLogged, this::releaseIfStable);
    }

    @Override
    public ServiceKey key() {
        return key;
    }

    @Override
    public void ready() {
        initialized.countDown();
    }

    /** Waits until the first list is known; whether it is. */
    boolean awaitReady(long millis) throws InterruptedException {
        return initialized.await(millis, TimeUnit.MILLISECONDS);
    }

    /** The list last passed on. */
    List<ServiceInstance> instances() {
        return instances;
    }

    /**
     * Takes the registry's whole list (the per-service layout reads it whole): unless
     * {@code believed} is false (the providers node's ACL was checked and found untrustworthy) it
     * is passed on, with the guard's held providers. O(list).
     */
    synchronized void publish(List<ServiceInstance> next, boolean believed, boolean graceOver) {
        if (closed) {
            return; // a late cache callback, or the first verify(), racing close()
        }
        if (!believed) {
            guard.releaseAll();
            listed.replaceAll(List.of());
            emit(List.of(), graceOver, true);
            return;
        }
        if (guard.enabled() && (!listed.isEmpty() || !guard.isEmpty())) {
            Map<Endpoint, ServiceInstance> now = new HashMap<>(next.size() * 2);
            for (ServiceInstance i : next) {
                now.put(i.endpoint(), i);
            }
            now.keySet().forEach(guard::back); // a restart, not a departure
            List<ServiceInstance> departed = new ArrayList<>();
            for (ServiceInstance i : listed.list()) {
                if (!now.containsKey(i.endpoint())) {
                    departed.add(i);
                }
            }
            guard.departed(departed, listed.size());
        }
        listed.replaceAll(next);
        emit(guard.withHeld(listed.list()), graceOver, true);
    }

    /**
     * One instance arrived or changed (the instance directory): found through the address index,
     * and the published list shares every chunk but one with the last; no read, no map rebuilt.
     */
    @Override
    public synchronized void arrived(ServiceInstance i) {
        if (!closed && put(i)) {
            emit(guard.withHeld(listed.list()), false, false);
        }
    }

    /** Many arrived at once (a subscription joining a followed application): published once. */
    @Override
    public synchronized void arrivedAll(List<ServiceInstance> all) {
        boolean changed = false;
        for (ServiceInstance i : all) {
            changed |= !closed && put(i);
        }
        if (changed) {
            emit(guard.withHeld(listed.list()), false, false);
        }
    }

    private boolean put(ServiceInstance i) {
        if (!listed.put(i)) {
            return false;
        }
        guard.back(i.endpoint());
        return true;
    }

    /** One instance left (the instance directory); {@code guarded}: the shrink guard may keep it. */
    @Override
    public synchronized void departed(Endpoint e, boolean guarded) {
        if (closed) {
            return;
        }
        int before = listed.size();
        ServiceInstance gone = listed.remove(e);
        if (gone == null) {
            return;
        }
        if (guarded && guard.enabled()) {
            guard.departed(List.of(gone), before);
        } else {
            guard.forget(e);
        }
        emit(guard.withHeld(listed.list()), false, false);
    }

    /** The guard's release may be due (the session's worker). */
    private synchronized void releaseIfStable() {
        if (guard.release(closed)) {
            emit(
                    guard.withHeld(listed.list()),
                    true,
                    true); // a list the registry has kept for a window needs no further grace
        }
    }

    /**
     * Passes a new list on, except that a sudden empty list is held for the grace.
     *
     * @param compare whether {@code next} may equal the list last passed on (a whole list read
     *                again); a single change always differs
     */
    private void emit(List<ServiceInstance> next, boolean graceOver, boolean compare) {
        if (next.isEmpty() && !instances.isEmpty() && !graceOver && emptyListGraceMillis > 0 && !closed) {
            if (pendingEmpty == null) {
                pendingEmpty =
                        session.worker().schedule(this::emptyGraceOver, emptyListGraceMillis, TimeUnit.MILLISECONDS);
            }
            return;
        }
        if (pendingEmpty != null) {
            pendingEmpty.cancel(false);
            pendingEmpty = null;
        }
        if (!compare || !next.equals(instances)) {
            if (next.isEmpty()) {
                // The consumer side warns, naming its reference: this is the registry's view.
                log.debug("ZooKeeper {} lists no provider of {} any more", session.connectString(), key);
            }
            instances = next;
            deliver(listener, next, key);
        }
    }

    private synchronized void emptyGraceOver() {
        pendingEmpty = null;
        if (!closed) {
            emit(guard.withHeld(listed.list()), true, true);
        }
    }

    /** Passes nothing more on; what the guard holds and a pending empty list are dropped. */
    synchronized void close() {
        closed = true;
        guard.releaseAll();
        if (pendingEmpty != null) {
            pendingEmpty.cancel(false);
            pendingEmpty = null;
        }
    }

    /** Passes {@code list} to {@code listener}; a listener's failure is logged, and the next change delivered too. */
    static void deliver(Listener listener, List<ServiceInstance> list, ServiceKey key) {
        try {
            listener.onChange(list);
        } catch (RuntimeException e) {
            log.warn("A listener of {} failed on a new list", key, e);
        }
    }
}
