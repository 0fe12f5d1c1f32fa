package io.xrpc.registry.zookeeper;

import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.RegistryProvider;

/**
 * {@code zookeeper://[user:password@]host:port[,host:port...][?name=value&...]}: an existing ZooKeeper
 * server or ensemble, as a digest user when the address names one; the parameters are
 * {@link ZookeeperSettings}'.
 */
public final class ZookeeperRegistryProvider implements RegistryProvider {
    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public Registry create(RegistryConfig config) {
        if (config.address().isBlank()) {
            throw new IllegalArgumentException(
                    "registry address: " + config + " (expected: zookeeper://host:port[,host:port...])");
        }
        return new ZookeeperRegistry(
                ZookeeperSettings.of(config), config.address(), config.username(), config.password(), null);
    }
}
