package io.xrpc.registry;

import java.util.List;

/**
 * Where providers announce themselves. A server registers each exported service only after it
 * listens, and unregisters it first when it shuts down. Implementations keep a registration alive
 * through connection loss and session expiry until {@link #unregister} or {@link #close}.
 */
public interface ServiceRegistry extends AutoCloseable {

    /** Announces {@code instance}; replaces a stale announcement of the same address. */
    void register(ServiceInstance instance);

    /**
     * Announces everything one server serves at once. A registry that keeps one entry per server
     * (ZooKeeper's per-instance layout) writes it once rather than once per service; the default
     * registers each.
     */
    default void registerAll(List<ServiceInstance> instances) {
        instances.forEach(this::register);
    }

    /** Withdraws {@code instance}; a no-op when it is not registered. */
    void unregister(ServiceInstance instance);

    /** Withdraws several at once (a server stopping); the default withdraws each. */
    default void unregisterAll(List<ServiceInstance> instances) {
        instances.forEach(this::unregister);
    }

    /** Withdraws everything this registry registered and releases its resources. */
    @Override
    void close();
}
