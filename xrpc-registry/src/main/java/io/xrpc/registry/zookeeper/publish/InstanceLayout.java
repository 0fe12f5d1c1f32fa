package io.xrpc.registry.zookeeper.publish;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-instance layout, as a provider writes it: one node per address whatever the number of
 * services, {@code {root}/apps/{app}/instances/{host:port}@{revision}}; the revision's content
 * (what the address serves) written before the first node that names it, and the application
 * added to each of its interfaces' mapping before that. A deployment's old revisions are swept
 * once no instance serves them.
 */
final class InstanceLayout implements NodeKeeper.Hook, ZookeeperSession.Listener {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    /**
     * How old a revision no instance serves must be before it is deleted: one being written now
     * has its instance node a few milliseconds later; a deployment rolling back finds an old one
     * still there within this time.
     */
    static volatile long revisionKeepMillis = TimeUnit.MINUTES.toMillis(10);

    private final CuratorFramework client;
    private final ZookeeperSession session;
    private final NodeKeeper keeper;
    private final PathGuard paths;
    private final String root;
    /** The application this registry's instances register under. */
    private final String application;
    /** {@code {root}/apps/{app}/instances/}: the nodes of this layout. */
    private final String instancesPrefix;
    /**
     * What each address of this process serves. Its lock also guards {@link #instanceNodes} and is
     * held while an address's node is written, so that updates of one address (an unexport racing
     * a stop) apply in order.
     */
    private final Map<Endpoint, Map<ServiceKey, ServiceInstance>> served = new HashMap<>();
    /** The node each address is registered as. Guarded by {@link #served}. */
    private final Map<Endpoint, String> instanceNodes = new HashMap<>();
    /** The content of the revisions this registry registers under, by id, written before their instance nodes. */
    private final Map<String, byte[]> revisionContents = new ConcurrentHashMap<>();
    /** Revisions known to be in ZooKeeper with their mapping entries, this session. */
    private final Set<String> writtenRevisions = ConcurrentHashMap.newKeySet();

    InstanceLayout(ZookeeperSession session, NodeKeeper keeper, PathGuard paths, String root, String application) {
        this.session = session;
        this.client = session.curator();
        this.keeper = keeper;
        this.paths = paths;
        this.root = root;
        this.application = application;
        this.instancesPrefix = NodeCodec.instancesPath(root, application) + "/";
    }

    @Override
    public void lost() {
        writtenRevisions.clear();
    }

    /** Registers what one server serves: one node per address, under a new name when its revision changed. */
    void registerAll(List<ServiceInstance> instances) {
        synchronized (served) {
            Set<Endpoint> changed = new LinkedHashSet<>();
            for (ServiceInstance i : instances) {
                served.computeIfAbsent(i.endpoint(), e -> new HashMap<>()).put(i.serviceKey(), i);
                changed.add(i.endpoint());
            }
            changed.forEach(this::updateInstance);
        }
    }

    /** Withdraws several at once: one node per address, not one revision per service. */
    void unregisterAll(List<ServiceInstance> instances) {
        synchronized (served) {
            Set<Endpoint> changed = new LinkedHashSet<>();
            for (ServiceInstance i : instances) {
                Map<ServiceKey, ServiceInstance> services = served.get(i.endpoint());
                if (services != null && services.remove(i.serviceKey()) != null) {
                    changed.add(i.endpoint());
                }
            }
            changed.forEach(this::updateInstance);
        }
    }

    /**
     * Registers {@code e}'s node for what it serves now: under a new name when its revision
     * changed (the old node deleted), none when it serves nothing.
     */
    private void updateInstance(Endpoint e) {
        assert Thread.holdsLock(served);
        Map<ServiceKey, ServiceInstance> services = served.get(e);
        String oldNode = instanceNodes.get(e);
        String node;
        if (services == null || services.isEmpty()) {
            served.remove(e);
            instanceNodes.remove(e);
            node = null;
        } else {
            byte[] content = NodeCodec.encodeRevision(services.values());
            String revision = NodeCodec.revisionOf(content);
            revisionContents.put(revision, content);
            node = instancesPrefix + NodeCodec.instanceName(e, revision);
            if (node.equals(oldNode)) {
                return;
            }
            instanceNodes.put(e, node);
        }
        // Keep only the revisions of the nodes registered now.
        Set<String> used = new HashSet<>();
        instanceNodes.values().forEach(n -> used.add(NodeCodec.instanceRevision(n)));
        revisionContents.keySet().retainAll(used);
        // The new node first: a consumer that sees it takes the address's new revision, and the
        // old node's deletion after it no longer concerns the address (no departure, no flap).
        if (node != null) {
            try {
                keeper.register(node, new byte[0]);
            } catch (RuntimeException failed) {
                // The old node stays what consumers see; the new one is dropped, and the next
                // change of this address (or a restart) tries again.
                keeper.unregister(node);
                if (oldNode != null) {
                    instanceNodes.put(e, oldNode);
                } else {
                    instanceNodes.remove(e);
                }
                throw failed;
            }
        }
        if (oldNode != null) {
            if (node == null) {
                keeper.markLeaving(oldNode); // gone, not replaced: consumers publish it at once
            }
            keeper.unregister(oldNode);
        }
    }

    @Override
    public boolean marksLeaving(String path) {
        return path.startsWith(instancesPrefix);
    }

    /** An instance node's revision is written before the node. */
    @Override
    public void beforeCreate(String path) throws Exception {
        if (path.startsWith(instancesPrefix)) {
            writeRevision(NodeCodec.instanceRevision(path));
        }
    }

    /**
     * Still there now that our node names it: another instance's sweep may have taken an old
     * revision this one went back to between our look and our node.
     */
    @Override
    public void afterCreate(String path) throws Exception {
        if (path.startsWith(instancesPrefix)) {
            String revision = NodeCodec.instanceRevision(path);
            if (client.checkExists().forPath(NodeCodec.revisionPath(root, application, revision)) == null) {
                writtenRevisions.remove(revision);
                writeRevision(revision);
            }
        }
    }

    /**
     * Makes sure the revision an instance node names is readable before the node appears: its
     * mapping entries first, then its content, so that a revision in ZooKeeper implies its
     * mapping. Once per revision and session: one read when it is there already.
     */
    private void writeRevision(String revision) throws Exception {
        byte[] content = revisionContents.get(revision);
        if (content == null || writtenRevisions.contains(revision)) {
            return;
        }
        String path = NodeCodec.revisionPath(root, application, revision);
        byte[] there;
        try {
            there = client.getData().forPath(path);
        } catch (KeeperException.NoNodeException none) {
            there = null;
        }
        if (!Arrays.equals(there, content)) {
            Set<String> interfaces = new TreeSet<>();
            NodeCodec.decodeRevision(revision, content)
                    .services()
                    .keySet()
                    .forEach(k -> interfaces.add(k.interfaceName()));
            for (String iface : interfaces) {
                writeMapping(iface);
            }
            if (there == null) {
                try {
                    client.create().creatingParentsIfNeeded().forPath(path, content);
                    // The first instance of a new deployment: the application's old revisions may go.
                    session.worker().execute(this::sweepRevisions);
                } catch (KeeperException.NodeExistsException exists) {
                    // another instance of the same revision wrote it
                }
            } else {
                // Other bytes under this revision's name: consumers would not believe it (it does not hash to its
                // name).
                log.warn("{} held content that is not its revision's; writing it again", path);
                client.setData().forPath(path, content);
            }
            paths.closeOpenNode(NodeCodec.revisionsPath(root, application));
        }
        writtenRevisions.add(revision);
    }

    /**
     * Deletes this application's revisions that no instance serves and that are older than
     * {@link #revisionKeepMillis}, so that ZooKeeper keeps about one revision per live deployment
     * rather than one per deployment ever made. Runs when a new revision is written (once per
     * deployment, by its first instance): two reads of the application's children, one
     * {@code exists} and one delete per stale revision.
     */
    private void sweepRevisions() {
        if (keeper.isClosed() || !session.isConnected()) {
            return;
        }
        String revisions = NodeCodec.revisionsPath(root, application);
        try {
            Set<String> used = new HashSet<>();
            for (String name : client.getChildren().forPath(NodeCodec.instancesPath(root, application))) {
                if (NodeCodec.instanceEndpoint(name) != null) {
                    used.add(NodeCodec.instanceRevision(name));
                }
            }
            long now = System.currentTimeMillis();
            int deleted = 0;
            for (String r : client.getChildren().forPath(revisions)) {
                if (used.contains(r) || revisionContents.containsKey(r)) {
                    continue;
                }
                Stat st = client.checkExists().forPath(revisions + "/" + r);
                if (st != null && now - st.getCtime() >= revisionKeepMillis) {
                    try {
                        client.delete().withVersion(st.getVersion()).forPath(revisions + "/" + r);
                        deleted++;
                    } catch (KeeperException.NoNodeException
                            | KeeperException.BadVersionException
                            | KeeperException.NoAuthException e) {
                        // gone, rewritten, or another identity's: left alone
                    }
                }
            }
            if (deleted > 0) {
                log.info(
                        "Deleted {} revisions of application {} that no instance serves any more",
                        deleted,
                        application);
            }
        } catch (Exception e) {
            log.debug("Could not sweep the revisions of {}", application, e);
        }
    }

    /**
     * Adds this application to the interface's mapping. A mapping made by another identity (another
     * team serving the same interface) may refuse it: consumers then do not find this application
     * through that interface, which is said, but its other services still register.
     */
    private void writeMapping(String iface) throws Exception {
        String node = NodeCodec.mappingPath(root, iface);
        try {
            client.create().creatingParentsIfNeeded().forPath(node + "/" + application);
        } catch (KeeperException.NodeExistsException exists) {
            // another instance of the application wrote it
        } catch (KeeperException.NoAuthException refused) {
            log.error(
                    "{} may not add application {} to {} (its ACL is another identity's): consumers will not find"
                            + " {} of this application; see docs/REGISTRY.md",
                    session.trust().identity(),
                    application,
                    node,
                    iface);
            return;
        }
        paths.closeOpenNode(node);
    }
}
