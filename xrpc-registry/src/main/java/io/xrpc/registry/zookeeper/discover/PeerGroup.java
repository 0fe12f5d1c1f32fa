package io.xrpc.registry.zookeeper.discover;

import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.Trust;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumers of one application that subset one service: each an EPHEMERAL node
 * {@code {root}/consumers/{service}/{application}/{16 random hex digits}}, written again under the
 * same name after a session expiry (so a consumer's place survives it), followed with one
 * persistent recursive watch: a consumer joining or leaving is one event to each, no read. A
 * consumer's place is its name's rank among the names, the same order for all. The nodes above
 * are persistent (not containers, which anyone could make anew once ZooKeeper removed them) and
 * get the registry's ACL; with credentials or {@code trust=}, the names are believed only under
 * a node whose ACL lets none but trusted identities add to it, as a provider list's are.
 *
 * <p>Everything runs on the session's worker (a resync is five round trips there); no call waits
 * for it. Until this consumer has seen its own node it has no place (its lists are used whole);
 * once it had one it keeps the last while the registry is unreachable or a read fails. At most
 * {@link #MAX_PEERS} names are kept (ZooKeeper's 1 MB reply bounds what one read can list, as for
 * an application's instances).
 */
public final class PeerGroup implements Supplier<PeerPosition>, ZookeeperSession.Listener {
    private static final Logger log = LoggerFactory.getLogger(InstanceDirectory.LOGGER);
    /** Names of a group kept at most: beyond them someone is filling it, and the rest are ignored. */
    public static final int MAX_PEERS = 10_000;

    private final ZookeeperSession session;
    private final CuratorFramework client;
    private final Trust trust;
    private final String dir;
    private final String own;
    private final long ownId;
    /**
     * The names, as the 64-bit numbers their 16 hex digits are, sorted (as signed numbers: any
     * order every consumer shares will do): 8 bytes a consumer in each group, where a set of
     * strings took about 100.
     */
    private long[] ids = new long[16]; // guarded by this

    private int size; // guarded by this
    private final Watcher watcher;
    private volatile PeerPosition position;
    private boolean capLogged; // guarded by this
    private boolean refusalLogged; // the worker's
    /** The names are not believed (the group node's ACL): no place from them until a resync believes them. */
    private boolean refused; // guarded by this

    private boolean retrying; // the worker's
    private boolean failureLogged; // the worker's
    private volatile boolean closed;

    /**
     * @param dir {@code {root}/consumers/{service}/{application}}: the consumers whose windows
     *            tile this service's providers
     * @param own this consumer's name ({@link #newName()}), the same in every group it joins: where
     *            the same consumers call several services, each has the same place in each, and so
     *            the same window over providers that serve them all (one set of connections)
     */
    public PeerGroup(ZookeeperSession session, String dir, String own) {
        if (!isPeerName(own)) {
            throw new IllegalArgumentException("peer name " + own + " (expected: 16 lowercase hex digits)");
        }
        this.session = session;
        this.client = session.curator();
        this.trust = session.trust();
        this.dir = dir;
        this.own = own;
        this.ownId = Long.parseUnsignedLong(own, 16);
        this.watcher = event -> run(() -> onEvent(event));
    }

    /** A consumer's name: 16 random hex digits. */
    public static String newName() {
        byte[] id = new byte[8];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /** Writes this consumer's node and starts following the others, on the session's worker. */
    public void start() {
        run(this::resync);
    }

    @Override
    public PeerPosition get() {
        return position;
    }

    @Override
    public void reconnected(boolean watchesKept, boolean otherServer) {
        run(this::resync);
    }

    private void run(Runnable r) {
        try {
            session.worker().execute(r);
        } catch (RejectedExecutionException closing) {
            // the registry is closing
        }
    }

    /** Makes the nodes above ours, checks who may add to them, sets the watch, writes ours, reads the names. */
    private void resync() {
        if (closed || !session.isConnected()) {
            return; // a reconnect comes
        }
        try {
            try {
                client.create().creatingParentsIfNeeded().forPath(dir);
            } catch (KeeperException.NodeExistsException exists) {
                // made by another consumer
            }
            if (trust.verifies()) {
                Stat st = new Stat();
                List<ACL> acl = client.getACL().storingStatIn(st).forPath(dir);
                if (!trust.believes(acl, st.getAversion())) {
                    synchronized (this) {
                        refused = true;
                        size = 0;
                    }
                    if (!refusalLogged) {
                        refusalLogged = true;
                        log.error(
                                "Not subsetting through {}: its ACL ({}) does not prove that only {} add consumers"
                                        + " there; this consumer's lists are used whole (docs/REGISTRY.md)",
                                dir,
                                ZookeeperAcl.describe(acl),
                                trust.identity());
                    }
                    position = null;
                    return;
                }
            }
            client.watchers()
                    .add()
                    .withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                    .usingWatcher(watcher)
                    .forPath(dir);
            writeOwn();
            List<String> now = client.getChildren().forPath(dir);
            synchronized (this) {
                refused = false;
                size = 0;
                for (String n : now) {
                    add(n);
                }
                place();
            }
            failureLogged = false;
        } catch (KeeperException.NoAuthException refused) {
            if (!refusalLogged) {
                refusalLogged = true;
                log.error(
                        "This consumer may not write {} (ZooKeeper refused it: {}); its lists are used whole."
                                + " Give consumers the providers' credentials, or xrpc.client.subsetting.peer-index"
                                + " and peer-count",
                        dir,
                        refused.getMessage());
            }
        } catch (Exception e) {
            if (closed) {
                return;
            }
            if (!failureLogged) {
                failureLogged = true; // once per streak of failures, not every second
                log.warn("Could not read the consumers under {} yet; trying again every second", dir, e);
            }
            retryLater();
        }
    }

    /** One resync a second later, however many failures ask for it. */
    private void retryLater() {
        if (retrying || closed) {
            return;
        }
        retrying = true;
        try {
            session.worker()
                    .schedule(
                            () -> {
                                retrying = false;
                                resync();
                            },
                            1,
                            TimeUnit.SECONDS);
        } catch (RejectedExecutionException closing) {
            retrying = false; // the registry is closing
        }
    }

    /** This consumer's node, unless it is there. A node of an earlier session of ours goes with it, and is written again then. */
    private void writeOwn() throws Exception {
        try {
            client.create().withMode(CreateMode.EPHEMERAL).forPath(dir + "/" + own);
        } catch (KeeperException.NodeExistsException there) {
            // ours, of this session or of one ending: its deletion is seen and it is written again
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
                remove(name);
            } else {
                return;
            }
            place();
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted && name.equals(own) && session.isConnected()) {
            try {
                writeOwn(); // an earlier session's node of ours expired, or someone deleted it
            } catch (Exception e) {
                log.debug("Could not write {} again yet; trying again", dir + "/" + own, e);
                retryLater(); // a resync writes it, and makes the group node if it went
            }
        }
    }

    private void add(String name) {
        if (!isPeerName(name)) {
            return; // not written by a consumer: ignored
        }
        long id = Long.parseUnsignedLong(name, 16);
        int at = find(id);
        if (at >= 0) {
            return;
        }
        if (size >= MAX_PEERS && id != ownId) {
            if (!capLogged) {
                capLogged = true;
                log.error("{} lists more than {} consumers; placing this one among the first of them", dir, MAX_PEERS);
            }
            return;
        }
        at = -at - 1;
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        System.arraycopy(ids, at, ids, at + 1, size - at);
        ids[at] = id;
        size++;
    }

    private void remove(String name) {
        if (!isPeerName(name)) {
            return;
        }
        int at = find(Long.parseUnsignedLong(name, 16));
        if (at >= 0) {
            System.arraycopy(ids, at + 1, ids, at, size - at - 1);
            size--;
        }
    }

    /** Where {@code id} is among the names, or {@code -(where it would go) - 1}. */
    private int find(long id) {
        return Arrays.binarySearch(ids, 0, size, id);
    }

    /** A consumer's node name: 16 lowercase hex digits. */
    private static boolean isPeerName(String name) {
        return name.length() == 16 && NodeCodec.isLowerHex(name, 0, 16);
    }

    /** This consumer's place among the names now; the last is kept while its own node is not seen. */
    private void place() {
        int at = refused ? -1 : find(ownId);
        if (at >= 0) {
            position = new PeerPosition(at, size);
        }
    }

    /** Deletes this consumer's node without waiting; the session's end would too. */
    public void close() {
        closed = true;
        try {
            client.delete().quietly().inBackground().forPath(dir + "/" + own);
        } catch (Exception e) {
            log.debug("Could not delete {}", dir + "/" + own, e);
        }
    }
}
