package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery.Listener;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
import java.util.List;
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
    /**
     * The list as the registry last gave it, believed; {@link #instances} adds what the guard
     * holds. Immutable, and often the same object as other services' lists (AddressIndex).
     */
    private AddressIndex listed = AddressIndex.EMPTY; // guarded by this

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
            listed = AddressIndex.EMPTY;
            emit(List.of(), graceOver, true);
            return;
        }
        AddressIndex index = AddressIndex.of(next);
        if (guard.enabled() && (!listed.isEmpty() || !guard.isEmpty())) {
            int registryListed = listed.size() - guard.size(); // before any held one is back
            next.forEach(i -> guard.back(i.endpoint())); // a restart, not a departure
            List<ServiceInstance> departed = new ArrayList<>();
            for (ServiceInstance i : listed.list()) {
                if (index.get(i.endpoint()) == null && !guard.isHeld(i.endpoint())) {
                    departed.add(i);
                }
            }
            guard.departed(departed, registryListed, false);
            if (!guard.isEmpty()) {
                index = index.putAll(guard.heldInstances());
            }
        }
        listed = index;
        emit(listed.list(), graceOver, true);
    }

    /**
     * One instance arrived or changed (the instance directory): found through the address index,
     * and the published list shares every chunk but one with the last; no read, no map rebuilt.
     */
    @Override
    public synchronized void arrived(ServiceInstance i) {
        if (!closed && put(i)) {
            emit(listed.list(), false, false);
        }
    }

    /** Many arrived at once (a subscription joining a followed application): published once. */
    @Override
    public synchronized void arrivedAll(List<ServiceInstance> all) {
        if (closed) {
            return;
        }
        AddressIndex next = listed.putAll(all);
        all.forEach(i -> guard.back(i.endpoint()));
        if (next != listed) {
            listed = next;
            emit(listed.list(), false, false);
        }
    }

    @Override
    public synchronized AddressIndex listing() {
        return listed;
    }

    @Override
    public synchronized void adopt(AddressIndex shared) {
        if (!closed && listed.isEmpty() && guard.isEmpty() && !shared.isEmpty()) {
            shared.list().forEach(i -> guard.back(i.endpoint())); // listed again: not gone in the window
            listed = shared;
            emit(listed.list(), false, false);
        }
    }

    /** Lists {@code i}; a provider the guard held is the registry's again. Whether the list changed. */
    private boolean put(ServiceInstance i) {
        guard.back(i.endpoint());
        AddressIndex next = listed.put(i);
        if (next == listed) {
            return false;
        }
        listed = next;
        return true;
    }

    /**
     * One instance left (the instance directory); {@code guarded}: the shrink guard may keep it
     * (false: no longer believed); {@code expired}: its node went with its session, not with its
     * leaving, and it is held until it registers again (ShrinkGuard).
     */
    @Override
    public synchronized void departed(Endpoint e, boolean guarded, boolean expired) {
        if (closed || guard.isHeld(e) && guarded) {
            return; // held already: the registry had stopped listing it
        }
        ServiceInstance gone = listed.get(e);
        if (gone == null) {
            return;
        }
        if (guarded && guard.enabled()) {
            List<ServiceInstance> held = guard.departed(List.of(gone), listed.size() - guard.size(), expired);
            AddressIndex next = guard.isHeld(e) ? listed : listed.remove(e);
            for (ServiceInstance h : held) {
                if (h != gone) {
                    next = next.put(h); // left earlier in the window: back in the list
                }
            }
            if (next != listed) {
                listed = next;
                emit(listed.list(), false, false);
            }
            return;
        }
        guard.forget(e);
        listed = listed.remove(e);
        emit(listed.list(), false, false);
    }

    /** The guard's release may be due (the session's worker). */
    private synchronized void releaseIfStable() {
        List<Endpoint> gone = guard.release(closed);
        if (!gone.isEmpty()) {
            for (Endpoint e : gone) {
                listed = listed.remove(e);
            }
            emit(listed.list(), true, true); // a list the registry has kept for a window needs no further grace
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
            emit(listed.list(), true, true);
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
