/**
 * ZooKeeper registry through Curator: {@link io.xrpc.registry.zookeeper.ZookeeperRegistry}, the
 * {@code zookeeper} and {@code embedded} address schemes, and
 * {@link io.xrpc.registry.zookeeper.EmbeddedZooKeeper} for development.
 */
package io.xrpc.registry.zookeeper;
