package io.xrpc.registry.zookeeper;

import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.RegistryProvider;

/**
 * {@code embedded}: a ZooKeeper inside the first JVM on this machine that asks for one, on a fixed
 * local port that later JVMs connect to ({@link EmbeddedZooKeeper}). For development and demos on
 * one machine; point anything else at a real ZooKeeper.
 */
public final class EmbeddedRegistryProvider implements RegistryProvider {
    @Override
    public String name() {
        return "embedded";
    }

    @Override
    public Registry create(RegistryConfig config) {
        ZookeeperSettings settings = ZookeeperSettings.of(config); // checked before a server starts
        String connectString = EmbeddedZooKeeper.acquire();
        try {
            return new ZookeeperRegistry(settings, connectString, config.username(), config.password(),
                    EmbeddedZooKeeper::release);
        } catch (RuntimeException e) {
            EmbeddedZooKeeper.release();
            throw e;
        }
    }
}
