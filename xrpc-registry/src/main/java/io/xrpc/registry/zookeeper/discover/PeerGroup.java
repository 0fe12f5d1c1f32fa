package io.xrpc.registry.zookeeper.discover;

import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumers of one application that subset, each an EPHEMERAL node
 * {@code {root}/consumers/{application}/{16 random hex digits}} kept through session expiries by
 * Curator's {@link PersistentNode} (the same name again, so a consumer's place survives them), and
 * followed with one persistent recursive watch: a consumer joining or leaving is one event to
 * each, no read. A consumer's place is its name's rank among the names, the same order for all.
 * Made when a reference first has a list large enough to subset; until this consumer has seen
 * its own node it has no place (its lists are used whole), and once it had one it keeps the last
 * while the registry is unreachable. At most {@link #MAX_PEERS} names are kept.
 */
public final class PeerGroup implements Supplier<PeerPosition>, ZookeeperSession.Listener {
    private static final Logger log = LoggerFactory.getLogger(InstanceDirectory.LOGGER);
    /** Names of a group kept at most: beyond them someone is filling it, and the rest are ignored. */
    public static final int MAX_PEERS = 10_000;

    private final ZookeeperSession session;
    private final CuratorFramework client;
    private final String dir;
    private final String own;
    private final PersistentNode node;
    private final TreeSet<String> names = new TreeSet<>(); // guarded by this
    private final Watcher watcher;
    private volatile PeerPosition position;
    private final CountDownLatch placed = new CountDownLatch(1);
    private boolean capLogged; // guarded by this
    private volatile boolean closed;

    public PeerGroup(ZookeeperSession session, String root, String application) {
        this.session = session;
        this.client = session.curator();
        this.dir = root + "/consumers/" + application;
        byte[] id = new byte[8];
        ThreadLocalRandom.current().nextBytes(id);
        this.own = HexFormat.of().formatHex(id);
        this.watcher = event -> session.worker().execute(() -> onEvent(event));
        this.node = new PersistentNode(client, CreateMode.EPHEMERAL, false, dir + "/" + own, new byte[0]);
    }

    /** Writes this consumer's node and starts following the others; its place is known once both are seen. */
    public void start() {
        node.start();
        session.worker().execute(this::resync);
    }

    /**
     * Waits up to {@code millis} for this consumer's first place (its node written and seen), so
     * that the first calls of a large list already go to its window; whether it is known.
     */
    public boolean awaitPlace(long millis) throws InterruptedException {
        return placed.await(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public PeerPosition get() {
        return position;
    }

    @Override
    public void reconnected(boolean watchesKept, boolean otherServer) {
        session.worker().execute(this::resync);
    }

    /** Sets the watch again (a new session has none) and reads the names once. */
    private void resync() {
        if (closed || !session.isConnected()) {
            return;
        }
        try {
            client.watchers()
                    .add()
                    .withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                    .usingWatcher(watcher)
                    .forPath(dir);
            List<String> now;
            try {
                now = client.getChildren().forPath(dir);
            } catch (KeeperException.NoNodeException none) {
                now = List.of(); // made with this consumer's node: the watch tells
            }
            synchronized (this) {
                names.clear();
                for (String n : now) {
                    add(n);
                }
                place();
            }
        } catch (Exception e) {
            log.warn("Could not read the consumers under {} yet; read again on reconnecting", dir, e);
        }
    }

    private void onEvent(WatchedEvent event) {
        String p = event.getPath();
        if (closed || p == null || !p.startsWith(dir + "/") || p.indexOf('/', dir.length() + 1) >= 0) {
            return;
        }
        String name = p.substring(dir.length() + 1);
        synchronized (this) {
            if (event.getType() == Watcher.Event.EventType.NodeCreated) {
                add(name);
            } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                names.remove(name);
            } else {
                return;
            }
            place();
        }
    }

    private void add(String name) {
        if (!isPeerName(name)) {
            return; // not written by a consumer: ignored
        }
        if (names.size() < MAX_PEERS || name.equals(own)) {
            names.add(name);
        } else if (!capLogged) {
            capLogged = true;
            log.error("{} lists more than {} consumers; placing this one among the first of them", dir, MAX_PEERS);
        }
    }

    /** A consumer's node name: 16 lowercase hex digits. */
    private static boolean isPeerName(String name) {
        if (name.length() != 16) {
            return false;
        }
        for (int i = 0; i < 16; i++) {
            char c = name.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** This consumer's place among the names now; the last is kept while its own node is not seen. */
    private void place() {
        if (names.contains(own)) {
            position = new PeerPosition(names.headSet(own).size(), names.size());
            placed.countDown();
        }
    }

    /** Deletes this consumer's node; the session's end would too. */
    public void close() {
        closed = true;
        try {
            node.close();
        } catch (Exception e) {
            log.debug("Could not delete {}", dir + "/" + own, e);
        }
    }
}
