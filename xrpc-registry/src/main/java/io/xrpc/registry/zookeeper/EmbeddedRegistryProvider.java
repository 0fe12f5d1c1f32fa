package io.xrpc.registry.zookeeper;

import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.RegistryProvider;

/**
 * {@code embedded}: a ZooKeeper started inside this JVM ({@link EmbeddedZooKeeper}), shared by
 * every embedded registry of the JVM. For development and demos on one machine; point separate
 * processes at a real ZooKeeper instead.
 */
public final class EmbeddedRegistryProvider implements RegistryProvider {
    @Override
    public String scheme() {
        return "embedded";
    }

    @Override
    public Registry create(RegistryConfig config) {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.acquire();
        try {
            return new ZookeeperRegistry(config, zk.connectString(), EmbeddedZooKeeper::release);
        } catch (RuntimeException e) {
            EmbeddedZooKeeper.release();
            throw e;
        }
    }
}
