/**
 * The registry's node layouts, not API: {@link io.xrpc.registry.zookeeper.layout.NodeCodec} names
 * the paths of both layouts (per instance and per service) and encodes and decodes their data,
 * the one place providers and consumers agree on. Uses nothing of ZooKeeper.
 */
package io.xrpc.registry.zookeeper.layout;
