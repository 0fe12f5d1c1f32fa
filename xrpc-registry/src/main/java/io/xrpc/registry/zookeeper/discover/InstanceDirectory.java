package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.Trust;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's view of the per-instance layout: which applications serve each interface it
 * follows ({@code {root}/mapping/{interface}}), and the instances of those applications, each
 * followed through one persistent recursive watch on its {@code instances} node and applied one
 * event at a time. An instance node's name holds its address and revision, so an arrival or a
 * departure costs no read; a revision's services are read once per application and kept while an
 * instance uses them. A reconnect reads each application's children once and applies the
 * difference, rather than every node again.
 *
 * <p>Everything here runs on one thread of its own, so it needs no lock; the targets it feeds
 * take their own. Public for its limits only.
 */
public final class InstanceDirectory {
    /** The logger of the directory and its watches: its name from before the registry was split, which operators may have set. */
    static final String LOGGER = "io.xrpc.registry.zookeeper.InstanceDirectory";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    /**
     * The most applications followed for one interface. An entry in the mapping costs a consumer a
     * watch and a read; without credentials anyone can add entries, so their number is bounded.
     */
    public static final int MAX_APPS_PER_INTERFACE = 64;
    /** Entries of one mapping node looked at per read: beyond them, someone is filling it. */
    public static final int MAX_MAPPING_ENTRIES = 1_000;
    /** Instances followed per application: about what one 1 MB reply of ZooKeeper can list. */
    public static final int MAX_INSTANCES_PER_APP = 20_000;

    /** What the directory feeds: one subscription's list. Called on the directory's thread. */
    interface Target {
        ServiceKey key();

        /** An instance arrived, or changed what it says of the service. */
        void arrived(ServiceInstance instance);

        /** Many arrived at once (a subscription joining an application already followed): one list published. */
        void arrivedAll(List<ServiceInstance> instances);

        /**
         * An instance left; {@code guarded}: through the shrink guard (false: no longer believed);
         * {@code expired}: its node went with its session, not its leaving (held until it is back).
         */
        void departed(Endpoint endpoint, boolean guarded, boolean expired);

        /** The first list is known (perhaps empty): the subscription may return. */
        void ready();

        /** The list as the registry gives it now (immutable). */
        AddressIndex listing();

        /**
         * Takes {@code shared}, another subscription's equal list, as its own while it lists
         * nothing yet: the two then stay one object while they change alike.
         */
        void adopt(AddressIndex shared);
    }

    final CuratorFramework client;
    final String root;
    /** The directory's one thread: every change of its state runs here. */
    final ExecutorService thread;
    /** Schedules the second look at an application whose revision could not be read. */
    final ScheduledExecutorService timer;

    final Trust trust;
    private final Map<String, MappingWatch> mappings = new HashMap<>();
    private final Map<String, AppWatch> apps = new HashMap<>();
    private volatile boolean closed;
    /** Whether anything was ever attached: a provider that subscribes to nothing starts no thread here. */
    private volatile boolean used;

    InstanceDirectory(ZookeeperSession session, String root) {
        this.client = session.curator();
        this.root = root;
        this.timer = session.worker();
        this.trust = session.trust();
        // Discards what comes after close (the watches' last events).
        this.thread = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "xrpc-discovery-" + session.connectString());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.DiscardPolicy());
    }

    /** Starts following {@code t}'s service; {@link Target#ready()} once its first list is known. */
    void attach(Target t) {
        used = true;
        thread.execute(() -> {
            try {
                MappingWatch m = mappings.computeIfAbsent(t.key().interfaceName(), i -> new MappingWatch(this, i));
                m.targets.add(t);
                if (!m.read) {
                    if (connected()) { // else the reconnect reads it: Curator would block here through its retries
                        m.read();
                    }
                } else {
                    for (String a : m.apps) {
                        apps.get(a).attach(t);
                    }
                }
            } catch (RuntimeException e) {
                log.warn("Could not read the providers of {} yet; read again on reconnecting", t.key(), e);
            } finally {
                t.ready();
            }
        });
    }

    /** The registry is closing: its session ends, which removes every watch; the thread stops. */
    void close() {
        closed = true;
        thread.shutdownNow();
    }

    /** Stops feeding {@code t}; an application no target needs any more is no longer watched. */
    void detach(Target t) {
        if (closed) {
            return;
        }
        thread.execute(() -> {
            MappingWatch m = mappings.get(t.key().interfaceName());
            if (m == null || !m.targets.remove(t)) {
                return;
            }
            for (String a : m.apps) {
                unfollow(a, t);
            }
            if (m.targets.isEmpty()) {
                mappings.remove(m.iface);
            }
        });
    }

    /**
     * After a reconnect: what may have changed while disconnected is read once per application
     * (its children, one request) and per interface, and the watches are set again (a new session
     * has none).
     */
    void resync() {
        if (!used) {
            return; // nothing followed: a provider process keeps no discovery thread
        }
        thread.execute(() -> {
            if (!connected()) {
                return; // a later reconnect comes
            }
            for (MappingWatch m : new ArrayList<>(mappings.values())) {
                try {
                    m.read();
                } catch (RuntimeException e) {
                    log.warn("Could not read the applications serving {} again yet", m.iface, e);
                }
            }
            for (AppWatch w : new ArrayList<>(apps.values())) {
                try {
                    w.watch();
                    w.resync();
                } catch (Exception e) {
                    log.warn("Could not read the instances of application {} again yet", w.app, e);
                }
            }
        });
    }

    /** Instances known, over all applications followed, and how many applications: for describe() and tests. */
    int[] followed() {
        if (!used) {
            return new int[] {0, 0};
        }
        try {
            // Bounded: describe() must answer while the directory's thread waits on ZooKeeper.
            return thread.submit(() -> new int[] {
                        apps.values().stream().mapToInt(w -> w.members.size()).sum(), apps.size()
                    })
                    .get(1, TimeUnit.SECONDS);
        } catch (Exception e) {
            return new int[] {-1, -1};
        }
    }

    /**
     * {@code e} no longer serves {@code t}'s service through application {@code from}; another
     * application {@code t} follows may list the same address (a reused IP), and then keeps it.
     */
    void depart(Target t, Endpoint e, boolean guarded, boolean expired, AppWatch from) {
        MappingWatch m = mappings.get(t.key().interfaceName());
        for (String name : m == null ? Set.<String>of() : m.apps) { // the applications t can follow, not all
            AppWatch w = apps.get(name);
            if (w != null && w != from && w.believed && w.targets.contains(t)) {
                Member other = w.members.get(e);
                ServiceInstance i = other == null ? null : other.entry(t.key());
                if (i != null) {
                    t.arrived(i);
                    return;
                }
            }
        }
        t.departed(e, guarded, expired);
    }

    boolean connected() {
        return client.getZookeeperClient().isConnected();
    }

    /** {@code t} no longer follows application {@code a}; nobody following it any more, it is no longer watched. */
    void unfollow(String a, Target t) {
        AppWatch w = apps.get(a);
        if (w != null && w.targets.remove(t) && w.targets.isEmpty()) {
            apps.remove(a);
            w.stop();
        }
    }

    /** The watch of {@code iface}'s mapping, or null. */
    MappingWatch mapping(String iface) {
        return mappings.get(iface);
    }

    /** The watch of application {@code a}, or null when it is not followed. */
    AppWatch app(String a) {
        return apps.get(a);
    }

    /** Follows application {@code a} through {@code w}. */
    void follow(String a, AppWatch w) {
        apps.put(a, w);
    }
}
