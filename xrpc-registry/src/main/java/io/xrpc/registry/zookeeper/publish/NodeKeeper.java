package io.xrpc.registry.zookeeper.publish;

import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a provider's EPHEMERAL nodes in ZooKeeper for as long as they are registered: after a
 * session expiry they are created again, a node left by this provider's previous session is
 * replaced rather than silently kept (it would vanish when that session's expiry is processed), a
 * node deleted by hand comes back, and a node another live process holds is not fought over. The
 * layouts ({@link ServiceLayout}, {@link InstanceLayout}) decide which nodes; this keeps them.
 *
 * <p>Writes run on the caller's thread while connected (so a registration that cannot be made
 * fails there), and on the session's worker after a reconnect or a watch event.
 */
final class NodeKeeper implements ZookeeperSession.Listener {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    /** What a layout does around the creation of one of its nodes. */
    interface Hook {
        /** Before {@code path} is created: what it refers to must be readable first. */
        void beforeCreate(String path) throws Exception;

        /** After {@code path} was created (or found ours): what it refers to is checked again. */
        void afterCreate(String path) throws Exception;

        /** Whether {@code path} gets the leaving mark before it goes (an instance node). */
        default boolean marksLeaving(String path) {
            return false;
        }
    }

    /**
     * What a provider writes into its instance node just before the node goes, when it leaves:
     * consumers then publish the deletion as a departure, where a node that went without it (its
     * session ended) is held until the provider registers it again under its next session.
     */
    static final byte[] LEAVING = "leaving".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static final Hook NONE = new Hook() {
        @Override
        public void beforeCreate(String path) {}

        @Override
        public void afterCreate(String path) {}
    };

    private final ZookeeperSession session;
    private final CuratorFramework client;
    private final ScheduledExecutorService worker;
    private final PathGuard paths;
    private volatile Hook hook = NONE;
    /** Path to node data of everything this registry keeps registered. */
    private final Map<String, byte[]> registrations = new ConcurrentHashMap<>();

    private final Map<String, CuratorWatcher> watchers = new ConcurrentHashMap<>();
    /** Registrations not known to be in ZooKeeper: made while disconnected, or whose write failed. */
    private final Set<String> unsynced = ConcurrentHashMap.newKeySet();
    /** Sessions this registry has had: their leftover nodes are ours to replace. */
    private final Set<Long> ownSessions = ConcurrentHashMap.newKeySet();
    /** Paths where a node of a foreign live session was replaced once already. */
    private final Set<String> replacedForeign = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    NodeKeeper(ZookeeperSession session, PathGuard paths) {
        this.session = session;
        this.client = session.curator();
        this.worker = session.worker();
        this.paths = paths;
    }

    /** Sets what the instance layout does around its nodes' creation. */
    void hook(Hook hook) {
        this.hook = hook;
    }

    /** Nodes kept registered now. */
    int size() {
        return registrations.size();
    }

    @Override
    public void reconnected(boolean watchesKept, boolean otherServer) {
        if (!watchesKept) {
            // A new session (after expiry) has none of our ephemeral nodes; without the client's
            // watch reset, the old one's watches are gone too.
            unsynced.addAll(registrations.keySet());
            worker.execute(this::ensureAll);
        } else {
            // One that survived keeps them, and a node deleted meanwhile fires its watch on the
            // reconnect (ZooKeeper's client sets its watches again): writing them all again would
            // only add to the storm. Only what is not known to be there, and watched, is written.
            worker.execute(() -> unsynced.forEach(this::ensureQuietly));
        }
    }

    @Override
    public void lost() {
        paths.forget();
    }

    /**
     * Keeps {@code path} registered with {@code data}; written now when connected, else when the
     * connection comes back.
     *
     * @throws IllegalStateException naming the path and why, when ZooKeeper refuses it
     */
    void register(String path, byte[] data) {
        registrations.put(path, data);
        unsynced.add(path); // until ensure() has made it
        if (!session.isConnected()) {
            // Curator would block here through its whole retry policy; the reconnect creates it.
            log.warn("ZooKeeper {} is not connected; {} is registered when it is", session.connectString(), path);
            return;
        }
        try {
            ensure(path, data);
        } catch (KeeperException.NoAuthException e) {
            throw new IllegalStateException(
                    "cannot register " + path + " in ZooKeeper " + session.connectString()
                            + ": " + session.trust().identity()
                            + " may not create it (NoAuth; a node on its path has an ACL"
                            + " for another identity)",
                    e);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot register " + path + " in ZooKeeper " + session.connectString()
                            + "; it is retried after reconnecting",
                    e);
        }
    }

    /** Stops keeping {@code path} and deletes it in the background (Curator retries until it is gone). */
    void unregister(String path) {
        unsynced.remove(path);
        if (registrations.remove(path) == null) {
            return;
        }
        watchers.remove(path);
        try {
            // In the background and guaranteed: never blocks the caller while ZooKeeper is away,
            // and Curator keeps trying until the node is gone.
            client.delete().quietly().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            log.warn("Could not delete {}; it disappears with this session", path, e);
        }
    }

    /** Whether {@link #close} ran. */
    boolean isClosed() {
        return closed;
    }

    /** Keeps nothing more; the session's end removes the nodes, each instance node marked as leaving first. */
    void close() {
        closed = true;
        Hook h = hook;
        for (String path : registrations.keySet()) {
            if (h.marksLeaving(path)) {
                markLeaving(path);
            }
        }
        registrations.clear();
    }

    /**
     * Writes the leaving mark into {@code path}, without waiting: through ZooKeeper's own queue, so
     * that it reaches the server before the deletion or the session's close that follows it.
     * Best effort: while disconnected nothing is written, and consumers hold the node's provider
     * as one whose session ended.
     */
    void markLeaving(String path) {
        if (!session.isConnected()) {
            return;
        }
        try {
            client.getZookeeperClient().getZooKeeper().setData(path, LEAVING, -1, (rc, p, ctx, stat) -> {}, null);
        } catch (Exception e) {
            log.debug("Could not mark {} as leaving", path, e);
        }
    }

    /** Creates the node, replacing one left by an earlier session, and watches for its deletion. */
    private void ensure(String path, byte[] data) throws Exception {
        if (closed || !registrations.containsKey(path)) {
            return;
        }
        long own = client.getZookeeperClient().getZooKeeper().getSessionId();
        ownSessions.add(own);
        // Made and closed before our node appears, so that a consumer believes it when it looks.
        paths.closeAncestors(path.substring(0, path.lastIndexOf('/')));
        Hook h = hook;
        h.beforeCreate(path);
        try {
            paths.createEphemeral(path, data);
        } catch (KeeperException.NodeExistsException e) {
            Stat stat = client.checkExists().forPath(path);
            if (stat != null && stat.getEphemeralOwner() != own) {
                if (!ownSessions.contains(stat.getEphemeralOwner()) && !replacedForeign.add(path)) {
                    // Replaced once already and back again: another live process advertises the
                    // same address. Fighting over the node would make it flap for every consumer.
                    log.error(
                            "{} belongs to another live ZooKeeper session: two providers advertise the same"
                                    + " address; not replacing it again (it is taken over if that session ends)",
                            path);
                    watch(path);
                    return;
                }
                log.info("Replacing {} left by an earlier session", path);
                replace(path, stat, data);
            } else if (stat != null) {
                if (!Arrays.equals(client.getData().forPath(path), data)) {
                    client.setData().forPath(path, data);
                }
            } else {
                ensure(path, data);
                return;
            }
        }
        if (closed || !registrations.containsKey(path)) {
            // unregister() or close() ran while we created it: do not leave it behind.
            client.delete().quietly().forPath(path);
            return;
        }
        h.afterCreate(path);
        if (watch(path)) {
            unsynced.remove(path); // made and watched
        }
    }

    /**
     * Deletes the node of an earlier session and creates ours in one transaction, so that no
     * reader of ZooKeeper sees the path without a node in between. (Watchers still get the
     * deletion and the creation as two events; consumers hold their list over such a moment.)
     */
    private void replace(String path, Stat old, byte[] data) throws Exception {
        try {
            client.transaction()
                    .forOperations(
                            client.transactionOp()
                                    .delete()
                                    .withVersion(old.getVersion())
                                    .forPath(path),
                            client.transactionOp()
                                    .create()
                                    .withMode(CreateMode.EPHEMERAL)
                                    .forPath(path, data));
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            // It expired or changed meanwhile: create it if it is not there now.
            try {
                paths.createEphemeral(path, data);
            } catch (KeeperException.NodeExistsException again) {
                ensure(path, data);
            }
        }
    }

    /**
     * Arms the one-shot watch on our node. One watcher object per path: ZooKeeper keeps a watcher
     * once however often it is registered, so repeated arming does not multiply callbacks.
     */
    private boolean watch(String path) throws Exception {
        CuratorWatcher w = watchers.computeIfAbsent(path, p -> event -> onWatch(event, p));
        if (client.checkExists().usingWatcher(w).forPath(path) == null) {
            // Deleted between our last look and this watch: the watch now waits for a creation.
            unsynced.add(path);
            worker.execute(() -> ensureQuietly(path));
            return false;
        }
        return true;
    }

    private void onWatch(WatchedEvent event, String path) {
        if (closed || !registrations.containsKey(path) || event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            unsynced.add(path);
            log.warn("{} was deleted while this provider runs; registering it again", path);
            worker.execute(() -> ensureQuietly(path));
        } else {
            worker.execute(() -> {
                try {
                    watch(path);
                } catch (Exception e) {
                    unsynced.add(path); // watched again, or made again, on the next reconnect
                    log.debug("Could not watch {} again yet", path, e);
                }
            });
        }
    }

    private void ensureAll() {
        for (String path : registrations.keySet()) {
            ensureQuietly(path);
        }
    }

    private void ensureQuietly(String path) {
        byte[] data = registrations.get(path);
        if (data == null) {
            return;
        }
        try {
            ensure(path, data);
        } catch (Exception e) {
            if (registrations.containsKey(path)) {
                unsynced.add(path);
            }
            log.warn("Could not register {} again yet; retrying after the next reconnect", path, e);
        }
    }
}
