package io.xrpc.registry.zookeeper;

import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.RegistryProvider;

/** {@code zookeeper://host:port[,host:port...]}: an existing ZooKeeper server or ensemble. */
public final class ZookeeperRegistryProvider implements RegistryProvider {
    @Override
    public String scheme() {
        return "zookeeper";
    }

    @Override
    public Registry create(RegistryConfig config) {
        if (config.hosts().isBlank()) {
            throw new IllegalArgumentException("registry address: " + config
                    + " (expected: zookeeper://host:port[,host:port...])");
        }
        return new ZookeeperRegistry(config, config.hosts(), null);
    }
}
