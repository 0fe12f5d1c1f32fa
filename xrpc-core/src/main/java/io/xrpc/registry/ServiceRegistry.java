package io.xrpc.registry;

/**
 * Where providers announce themselves. A server registers each exported service only after it
 * listens, and unregisters it first when it shuts down. Implementations keep a registration alive
 * through connection loss and session expiry until {@link #unregister} or {@link #close}.
 */
public interface ServiceRegistry extends AutoCloseable {

    /** Announces {@code instance}; replaces a stale announcement of the same address. */
    void register(ServiceInstance instance);

    /** Withdraws {@code instance}; a no-op when it is not registered. */
    void unregister(ServiceInstance instance);

    /** Withdraws everything this registry registered and releases its resources. */
    @Override
    void close();
}
