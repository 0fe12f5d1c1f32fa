package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.Trust;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-service layout, as a consumer reads one service: a {@link CuratorCache} of its
 * {@code providers} node, read whole into its {@link ProviderList} on every change, and, when this
 * client verifies what it reads, the node's ACL checked before its providers are believed.
 * Thread-safe.
 */
final class ServiceWatch {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    private final ServiceKey key;
    private final String path;
    private final ProviderList list;
    private final CuratorFramework client;
    private final ZookeeperSession session;
    private final Trust trust;
    /** The cache whose events count. */
    private volatile CuratorCache cache;
    /** A cache reading the node anew, which replaces {@link #cache} once read whole; guarded by this. */
    private CuratorCache pending;
    /** Whether {@link #start()} ran: a reread before it would race the first cache's start. Guarded by this. */
    private boolean started;

    private volatile boolean closed; // written under this
    /**
     * The providers node as last checked: its creation and ACL versions, and whether only
     * trusted identities may write under it. Lists are believed only under such a node, when secured.
     */
    private volatile long checkedCzxid = -1;

    private volatile int checkedAversion = -1;
    private volatile boolean believed;
    private final AtomicBoolean verifying = new AtomicBoolean();
    /** Whether this unverifying watch has looked at its node's ACL, to warn if it is not open. */
    private final AtomicBoolean lookedAtAcl = new AtomicBoolean();

    ServiceWatch(ProviderList list, ZookeeperSession session, String root) {
        this.key = list.key();
        this.path = NodeCodec.providersPath(root, key);
        this.list = list;
        this.session = session;
        this.client = session.curator();
        this.trust = session.trust();
        this.cache = newCache();
    }

    synchronized void start() {
        started = true;
        cache.start();
    }

    /** A cache of the providers node whose events count once it is the current one and read whole. */
    private CuratorCache newCache() {
        CuratorCache c = CuratorCache.build(client, path);
        AtomicBoolean whole = new AtomicBoolean();
        c.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forAll((type, oldData, data) -> {
                            if (whole.get() && cache == c) {
                                refresh();
                            }
                        })
                        .afterInitialized()
                        .forInitialized(() -> {
                            whole.set(true);
                            CuratorCache replaced = null;
                            synchronized (this) {
                                if (pending == c) {
                                    replaced = cache;
                                    cache = c;
                                    pending = null;
                                }
                            }
                            if (replaced != null) {
                                replaced.close();
                            }
                            if (cache == c) {
                                refresh();
                                list.ready();
                            }
                        })
                        .build());
        return c;
    }

    /**
     * Reads the providers node anew into a new cache, which replaces the old one once read
     * whole; until then the last list stands (and an empty one waits out the grace).
     */
    synchronized void reread() {
        if (closed || !started) {
            return; // a watch starting now reads the server as it is
        }
        if (pending != null) {
            pending.close();
        }
        // A new node, perhaps: trusted() checks its ACL again when its czxid differs.
        pending = newCache();
        pending.start(); // reads in the background; under the lock, so close() cannot miss it
    }

    private void refresh() {
        list.publish(read(), trusted(), false);
    }

    /** Whether the providers node is the one last checked and was believed; starts a check when it is not. */
    private boolean trusted() {
        if (!trust.verifies()) {
            if (!trust.warned() && lookedAtAcl.compareAndSet(false, true)) {
                session.worker().execute(() -> {
                    try {
                        trust.warnIfTrustingAnyone(path, client.getACL().forPath(path));
                    } catch (Exception e) {
                        lookedAtAcl.set(false); // no node yet, or not readable now: look at the next list
                    }
                });
            }
            return true;
        }
        ChildData node = cache.get(path).orElse(null);
        if (node == null || node.getStat() == null) {
            return true; // no providers node: no list to believe or doubt
        }
        Stat st = node.getStat();
        if (st.getCzxid() == checkedCzxid && st.getAversion() == checkedAversion) {
            return believed;
        }
        if (verifying.compareAndSet(false, true)) {
            session.worker().execute(() -> {
                verifying.set(false);
                verify();
            });
        }
        return false;
    }

    /** Reads the providers node's ACL, logs when its providers are not believed, and publishes the list. */
    void verify() {
        if (!trust.verifies() || closed) {
            return;
        }
        try {
            Stat st = new Stat();
            List<ACL> current = client.getACL().storingStatIn(st).forPath(path);
            boolean now = trust.believes(current, st.getAversion());
            boolean sameNode = st.getCzxid() == checkedCzxid && st.getAversion() == checkedAversion;
            if (!now && (believed || !sameNode)) {
                log.error(
                        "Not calling the providers of {} listed under {}: its ACL ({}, changed {} times since it"
                                + " was made) does not prove that only {} wrote there, so its providers cannot be attributed."
                                + " A provider with these credentials makes it anew when it registers (docs/REGISTRY.md){}",
                        key,
                        path,
                        ZookeeperAcl.describe(current),
                        st.getAversion(),
                        trust.identity(),
                        ZookeeperAcl.hiddenDigests(current));
            } else if (now && !believed && checkedCzxid != -1) {
                log.info(
                        "{} is written by trusted identities only now ({}); its providers are believed",
                        path,
                        ZookeeperAcl.describe(current));
            }
            believed = now;
            checkedAversion = st.getAversion();
            checkedCzxid = st.getCzxid();
        } catch (KeeperException.NoNodeException gone) {
            // deleted meanwhile: the cache's next event checks again
        } catch (Exception e) {
            log.debug("Could not read the ACL of {} yet", path, e);
            return;
        }
        refresh();
    }

    /** The providers in the cache; to be believed only when {@link #trusted()}. */
    private List<ServiceInstance> read() {
        List<ServiceInstance> found = new ArrayList<>();
        String prefix = path + "/";
        cache.stream().forEach((ChildData d) -> {
            String p = d.getPath();
            if (p.startsWith(prefix) && p.indexOf('/', prefix.length()) < 0) {
                try {
                    found.add(NodeCodec.decode(key, p.substring(prefix.length()), d.getData()));
                } catch (RuntimeException e) {
                    log.warn("Ignoring provider node {} with unreadable data", p, e);
                }
            }
        });
        return List.copyOf(found);
    }

    /** Stops both caches. */
    synchronized void close() {
        closed = true;
        if (pending != null) {
            pending.close();
            pending = null;
        }
        cache.close();
    }
}
