package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery.Listener;
import io.xrpc.registry.ServiceDiscovery.Subscription;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's subscriptions on one session: each a {@link ProviderList} fed by a
 * {@link ServiceWatch} (per-service layout) or by the {@link InstanceDirectory} (per-instance
 * layout), or the {@link UnionSubscription} of both while a fleet moves between them. Keeps the
 * lists whole across reconnects: the directory reads again what changed, and a session on another
 * server makes every per-service list read anew.
 */
public final class Subscriptions implements ZookeeperSession.Listener {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    /**
     * How lists are read and guarded.
     *
     * @param perService     read the per-service layout
     * @param perInstance    read the per-instance layout (both: their union)
     * @param emptyListGrace how long a sudden empty list is held back
     * @param shrinkGuard    the share of a list that may vanish within the window before departures are held
     * @param shrinkWindow   the shrink guard's window
     * @param connectTimeout how long a subscription waits for its first list
     */
    public record Settings(
            String root,
            boolean perService,
            boolean perInstance,
            Duration emptyListGrace,
            double shrinkGuard,
            Duration shrinkWindow,
            Duration connectTimeout) {}

    private final ZookeeperSession session;
    private final Settings settings;
    /** Null unless the per-instance layout is read. */
    private final InstanceDirectory directory;

    private final List<Sub> open = new CopyOnWriteArrayList<>();
    /** Whether the shrink guard's current hold was logged: once per episode, not once per service. */
    private final AtomicBoolean holdLogged = new AtomicBoolean();

    public Subscriptions(ZookeeperSession session, Settings settings) {
        this.session = session;
        this.settings = settings;
        this.directory = settings.perInstance() ? new InstanceDirectory(session, settings.root()) : null;
    }

    @Override
    public void reconnected(boolean watchesKept, boolean otherServer) {
        if (directory != null) {
            // What changed while disconnected, read once per application; the watches again.
            directory.resync();
        }
        if (otherServer) {
            // Its nodes' version counters start again, and a cache that compares them would miss
            // what changed. Read every subscription anew.
            session.worker().execute(() -> open.forEach(Sub::reread));
        }
    }

    /**
     * Watches {@code key} and returns once the first list is loaded, so a reference made just now
     * already knows its providers; when ZooKeeper is unreachable it returns after the connect
     * timeout with an empty list that fills in on reconnection.
     */
    public Subscription subscribe(ServiceKey key, Listener listener) {
        if (settings.perService() && settings.perInstance()) {
            return new UnionSubscription(key, listener, this);
        }
        return subscribe(key, listener, settings.perService());
    }

    /** One layout's list of {@code key}. */
    Subscription subscribe(ServiceKey key, Listener listener, boolean perService) {
        ProviderList list = new ProviderList(
                key,
                listener,
                session,
                settings.emptyListGrace().toMillis(),
                settings.shrinkGuard(),
                settings.shrinkWindow().toNanos(),
                holdLogged);
        Sub sub = new Sub(list, perService ? new ServiceWatch(list, session, settings.root()) : null);
        open.add(sub);
        sub.start();
        long wait = settings.connectTimeout().toMillis();
        try {
            if (!list.awaitReady(wait)) {
                log.warn(
                        "Providers of {} not loaded from ZooKeeper {} within {} ms; going on without them for now",
                        key,
                        session.connectString(),
                        wait);
            } else if (sub.watch != null) {
                sub.watch.verify(); // here rather than on the worker: the first list is known when this returns
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sub;
    }

    /** Subscriptions open now: each holds its providers until closed. */
    public int size() {
        return open.size();
    }

    /** Instances known over all applications followed, and how many applications; null without the directory. */
    public int[] followed() {
        return directory == null ? null : directory.followed();
    }

    /** Closes every subscription (the session's end removes the watches). */
    public void close() {
        if (directory != null) {
            directory.close();
        }
        for (Sub s : open) {
            s.close();
        }
    }

    /** One layout's subscription: its list, and what feeds it. */
    private final class Sub implements Subscription {
        final ProviderList list;
        /** Null when the instance directory feeds the list. */
        final ServiceWatch watch;

        Sub(ProviderList list, ServiceWatch watch) {
            this.list = list;
            this.watch = watch;
        }

        void start() {
            if (watch != null) {
                watch.start();
            } else {
                directory.attach(list);
            }
        }

        void reread() {
            if (watch != null) {
                watch.reread();
            }
        }

        @Override
        public List<ServiceInstance> instances() {
            return list.instances();
        }

        @Override
        public void close() {
            open.remove(this);
            list.close();
            if (watch != null) {
                watch.close();
            } else {
                directory.detach(list);
            }
        }
    }
}
