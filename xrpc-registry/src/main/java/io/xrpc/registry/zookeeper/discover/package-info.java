/**
 * A consumer's side of the registry, not API:
 * {@link io.xrpc.registry.zookeeper.discover.Subscriptions} makes one provider list per
 * subscribed service ({@code ProviderList}, with its {@code ShrinkGuard} and empty-list grace),
 * fed by a per-service watch ({@code ServiceWatch}) or by the per-instance
 * {@code InstanceDirectory} (its {@code MappingWatch} and {@code AppWatch}es), and the
 * {@link io.xrpc.registry.zookeeper.discover.Catalog} lists what is registered. Uses the session
 * and the layout, never the provider's side.
 */
package io.xrpc.registry.zookeeper.discover;
