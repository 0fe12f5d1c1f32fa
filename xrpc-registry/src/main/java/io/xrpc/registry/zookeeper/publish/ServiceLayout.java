package io.xrpc.registry.zookeeper.publish;

import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.List;

/**
 * The per-service layout, as a provider writes it: one node per service and address,
 * {@code {root}/{interface}/{group}/{version}/providers/{host:port}}, its data the instance's
 * weight, serializers and metadata.
 */
final class ServiceLayout {
    private final NodeKeeper keeper;
    private final String root;

    ServiceLayout(NodeKeeper keeper, String root) {
        this.keeper = keeper;
        this.root = root;
    }

    void registerAll(List<ServiceInstance> instances) {
        for (ServiceInstance i : instances) {
            keeper.register(NodeCodec.instancePath(root, i), NodeCodec.encode(i));
        }
    }

    void unregisterAll(List<ServiceInstance> instances) {
        for (ServiceInstance i : instances) {
            keeper.unregister(NodeCodec.instancePath(root, i));
        }
    }
}
