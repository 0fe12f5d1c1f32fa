package io.xrpc.registry;

/** A registry that both providers and consumers use, such as ZooKeeper. */
public interface Registry extends ServiceRegistry, ServiceDiscovery {

    /** Withdraws this registry's registrations, stops its subscriptions and releases its resources. */
    @Override
    void close();
}
