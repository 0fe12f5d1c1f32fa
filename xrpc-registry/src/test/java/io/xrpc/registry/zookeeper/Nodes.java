package io.xrpc.registry.zookeeper;

import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.List;

/** Where the registry keeps an instance, for tests that look at ZooKeeper directly. */
final class Nodes {
    private Nodes() {}

    /** The per-instance node of a provider that serves {@code instance}'s service only, under {@code /xrpc}, application {@code default}. */
    static String node(ServiceInstance instance) {
        return NodeCodec.instancesPath("/xrpc", ZookeeperSettings.DEFAULT_APPLICATION) + "/"
                + NodeCodec.instanceName(instance.endpoint(), revision(instance));
    }

    /** The revision of a provider that serves {@code instance}'s service only. */
    static String revision(ServiceInstance instance) {
        return NodeCodec.revisionOf(NodeCodec.encodeRevision(List.of(instance)));
    }

    static String instancesDir() {
        return NodeCodec.instancesPath("/xrpc", ZookeeperSettings.DEFAULT_APPLICATION);
    }
}
