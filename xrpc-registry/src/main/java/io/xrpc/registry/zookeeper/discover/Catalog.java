package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.ServiceKey;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * What is registered, read once for a tool (the {@code xrpc} command line lists services and names
 * the versions of one): the interfaces of both layouts and the keys one interface is registered
 * under. Nothing is watched or kept; each read is bounded by ZooKeeper's reply size.
 */
public final class Catalog {
    /** Applications and revisions {@link #keysOf} reads at most: it names keys in an error, it does not list a fleet. */
    static final int KEYS_OF_READS = 32;

    private final CuratorFramework client;
    private final String root;
    /** Where, for messages: the connect string and the root. */
    private final String where;

    public Catalog(CuratorFramework client, String connectString, String root) {
        this.client = client;
        this.root = root;
        this.where = connectString + root;
    }

    /**
     * The interfaces of both layouts: the per-instance layout's mapping entries, and the
     * per-service layout's top-level nodes. Two reads, one reply each.
     *
     * @throws IllegalStateException when ZooKeeper cannot be read, naming why
     */
    public List<String> interfaceNames() {
        TreeSet<String> names = new TreeSet<>();
        try {
            for (String c : childrenOrNone(root)) {
                if (!c.equals("apps") && !c.equals("mapping") && !c.equals("consumers")) {
                    names.add(c);
                }
            }
            names.addAll(childrenOrNone(root + "/mapping"));
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the services in " + where + ": " + e, e);
        }
        return List.copyOf(names);
    }

    /**
     * The keys {@code interfaceName} has providers under, in both layouts: per service
     * ({@code {root}/{interface}/{group}/{version}/providers}), and per instance (the applications
     * its mapping names, the revisions their live instances serve). At most
     * {@value #KEYS_OF_READS} applications and revisions are read.
     *
     * @throws IllegalStateException when ZooKeeper cannot be read, naming why
     */
    public List<ServiceKey> keysOf(String interfaceName) {
        Set<ServiceKey> keys = new TreeSet<>(Comparator.comparing(ServiceKey::toString));
        String base = root + "/" + interfaceName;
        try {
            for (String group : childrenOrNone(base)) {
                for (String version : childrenOrNone(base + "/" + group)) {
                    if (!childrenOrNone(base + "/" + group + "/" + version + "/providers")
                            .isEmpty()) {
                        keys.add(new ServiceKey(
                                interfaceName,
                                NodeCodec.EMPTY.equals(version) ? "" : version,
                                NodeCodec.EMPTY.equals(group) ? "" : group));
                    }
                }
            }
            int reads = 0;
            for (String app : childrenOrNone(NodeCodec.mappingPath(root, interfaceName))) {
                if (!NodeCodec.isApplicationName(app) || ++reads > KEYS_OF_READS) {
                    continue;
                }
                Set<String> revisions = new TreeSet<>();
                for (String instance : childrenOrNone(NodeCodec.instancesPath(root, app))) {
                    if (NodeCodec.instanceEndpoint(instance) != null) {
                        revisions.add(NodeCodec.instanceRevision(instance));
                    }
                }
                for (String revision : revisions) {
                    if (++reads > KEYS_OF_READS) {
                        break;
                    }
                    try {
                        byte[] content = client.getData().forPath(NodeCodec.revisionPath(root, app, revision));
                        NodeCodec.decodeRevision(revision, content).services().keySet().stream()
                                .filter(k -> k.interfaceName().equals(interfaceName))
                                .forEach(keys::add);
                    } catch (KeeperException.NoNodeException | IllegalArgumentException gone) {
                        // deregistered meanwhile, or a revision that does not hash to its name: not a key
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the keys of " + interfaceName + " in " + where + ": " + e, e);
        }
        return List.copyOf(keys);
    }

    private List<String> childrenOrNone(String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
