package io.xrpc.registry.zookeeper.publish;

import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.List;

/**
 * What a provider's registry writes: the nodes of one layout ({@link ServiceLayout} per service,
 * {@link InstanceLayout} per instance), or of both ({@link #of}).
 */
public interface Publisher {

    /** Registers what one server serves; fails naming the node ZooKeeper refused. */
    void registerAll(List<ServiceInstance> instances);

    /** Withdraws these services; their nodes are deleted in the background. */
    void unregisterAll(List<ServiceInstance> instances);

    /** Nodes kept registered now. */
    int registered();

    /** Keeps nothing more: the session's end removes the nodes. */
    void close();

    /**
     * The publisher of a session: per service ({@code services}), per instance of
     * {@code application} ({@code instances}), or both, under {@code root}.
     */
    static Publisher of(
            ZookeeperSession session, String root, boolean services, boolean instances, String application) {
        PathGuard paths = new PathGuard(session.curator(), session.trust(), root);
        NodeKeeper keeper = new NodeKeeper(session, paths);
        session.listen(keeper);
        ServiceLayout perService = services ? new ServiceLayout(keeper, root) : null;
        InstanceLayout perInstance = null;
        if (instances) {
            perInstance = new InstanceLayout(session, keeper, paths, root, application);
            keeper.hook(perInstance);
            session.listen(perInstance);
        }
        InstanceLayout instanceLayout = perInstance;
        return new Publisher() {
            @Override
            public void registerAll(List<ServiceInstance> list) {
                if (perService != null) {
                    perService.registerAll(list);
                }
                if (instanceLayout != null) {
                    instanceLayout.registerAll(list);
                }
            }

            @Override
            public void unregisterAll(List<ServiceInstance> list) {
                if (perService != null) {
                    perService.unregisterAll(list);
                }
                if (instanceLayout != null) {
                    instanceLayout.unregisterAll(list);
                }
            }

            @Override
            public int registered() {
                return keeper.size();
            }

            @Override
            public void close() {
                keeper.close();
            }
        };
    }
}
