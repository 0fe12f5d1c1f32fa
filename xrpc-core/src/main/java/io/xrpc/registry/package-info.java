/**
 * Registry SPI: providers announce {@link io.xrpc.registry.ServiceInstance}s through a
 * {@link io.xrpc.registry.ServiceRegistry}, consumers watch them through a
 * {@link io.xrpc.registry.ServiceDiscovery}. {@link io.xrpc.registry.Registries} picks the
 * implementation by address scheme; ZooKeeper lives in the xrpc-registry module.
 */
package io.xrpc.registry;
