package io.xrpc.registry.zookeeper.publish;

import io.xrpc.registry.zookeeper.session.Trust;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes above a provider's, as a provider with credentials needs them: made with its ACL and
 * persistent (not containers, which ZooKeeper removes once empty and anyone could then make
 * again), a providers node it would not believe made anew, and any node above that anyone may add
 * to given its ACL. Without credentials it only creates what is missing, as containers. Each path is
 * checked once per session.
 */
final class PathGuard {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    private final CuratorFramework client;
    private final Trust trust;
    private final String root;
    /** Providers paths whose ancestors were found closed (or closed by us) already. */
    private final Set<String> closedPaths = ConcurrentHashMap.newKeySet();

    PathGuard(CuratorFramework client, Trust trust, String root) {
        this.client = client;
        this.trust = trust;
        this.root = root;
    }

    /** The session was lost: perhaps another server, or its data gone; every path is checked again. */
    void forget() {
        closedPaths.clear();
    }

    /**
     * Creates a provider's node and any missing node above it: containers, which ZooKeeper removes
     * once empty, without credentials; persistent with them, so that nobody can take a path over
     * after it was removed.
     */
    void createEphemeral(String path, byte[] data) throws Exception {
        if (trust.secured()) {
            client.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path, data);
        } else {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path, data);
        }
    }

    /** With credentials: a node anyone may add children to gets this registry's ACL (said once per node). */
    void closeOpenNode(String path) throws Exception {
        if (!trust.secured() || closedPaths.contains(path)) {
            return;
        }
        try {
            closeIfOpen(path);
        } catch (KeeperException.NoNodeException gone) {
            return;
        }
        closedPaths.add(path);
    }

    /** Gives {@code path} this registry's ACL when anyone may add children to it, saying so. */
    private void closeIfOpen(String path) throws Exception {
        List<ACL> current = client.getACL().forPath(path);
        if (ZookeeperAcl.anyoneMayCreate(current)) {
            try {
                client.setACL().withACL(trust.acl()).forPath(path);
                log.warn(
                        "{} let anyone add nodes ({}); set to {}",
                        path,
                        ZookeeperAcl.describe(current),
                        ZookeeperAcl.describe(trust.acl()));
            } catch (KeeperException.NoAuthException e) {
                log.error(
                        "{} lets anyone add nodes ({}) and {} may not change its ACL",
                        path,
                        ZookeeperAcl.describe(current),
                        trust.identity());
            }
        }
    }

    /**
     * With credentials: makes the providers node anew when this registry would not believe it
     * (its ACL changed since it was made, or lets others add to it; what is under it was then
     * possibly written by them), creating it and the nodes above it with this registry's ACL, and
     * gives that ACL to any node above it that anyone may add to. Once per providers node.
     */
    void closeAncestors(String providersPath) throws Exception {
        if (!trust.secured() || closedPaths.contains(providersPath)) {
            return;
        }
        Stat st = new Stat();
        try {
            List<ACL> current = client.getACL().storingStatIn(st).forPath(providersPath);
            if (!trust.believes(current, st.getAversion())) {
                try {
                    client.delete().deletingChildrenIfNeeded().forPath(providersPath);
                    log.warn(
                            "{} was not made by this identity alone (ACL {}, changed {} times since made): made it"
                                    + " anew; providers registered under it register again (docs/REGISTRY.md)",
                            providersPath,
                            ZookeeperAcl.describe(current),
                            st.getAversion());
                } catch (KeeperException.NoAuthException e) {
                    log.error(
                            "{} was not made by this identity alone (ACL {}) and {} may not delete it: consumers"
                                    + " with credentials will not believe its providers; delete it as ZooKeeper's admin",
                            providersPath,
                            ZookeeperAcl.describe(current),
                            trust.identity());
                    return;
                }
            }
        } catch (KeeperException.NoNodeException none) {
            // made below
        }
        try {
            client.create().creatingParentsIfNeeded().forPath(providersPath);
        } catch (KeeperException.NodeExistsException exists) {
            // ours, checked above
        }
        for (String p = providersPath.substring(0, providersPath.lastIndexOf('/'));
                p.length() >= root.length();
                p = p.substring(0, p.lastIndexOf('/'))) {
            closeIfOpen(p);
            if (p.equals(root)) {
                break;
            }
        }
        closedPaths.add(providersPath);
    }
}
