/**
 * ZooKeeper registry through Curator: the {@code zookeeper} and {@code embedded} address schemes,
 * their settings ({@link io.xrpc.registry.zookeeper.ZookeeperSettings}), the facade
 * {@link io.xrpc.registry.zookeeper.ZookeeperRegistry} that wires the parts below by layout, and
 * {@link io.xrpc.registry.zookeeper.EmbeddedZooKeeper} for development. This package is the
 * module's API; its sub-packages are its parts, not API: {@code session} (the Curator session,
 * identity and trust), {@code layout} (node paths and data), {@code publish} (a provider's nodes
 * and what keeps them alive), {@code discover} (a consumer's lists, the shrink guard and the
 * watchers). Start reading at {@code ZookeeperRegistry}.
 */
package io.xrpc.registry.zookeeper;
