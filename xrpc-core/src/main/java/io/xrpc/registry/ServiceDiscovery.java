package io.xrpc.registry;

import io.xrpc.common.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where consumers find providers. A subscription keeps the last known list in memory: while the
 * registry is unreachable it keeps reporting what it last saw, so calls go on to known providers.
 */
public interface ServiceDiscovery extends AutoCloseable {

    /**
     * Watches {@code key}, returning once the current list is known (or, when the registry is
     * unreachable, after its connect timeout). The listener receives the whole list after every
     * change; calls come from one thread at a time and must not block.
     */
    Subscription subscribe(ServiceKey key, Listener listener);

    /** Whether the registry is reachable right now (an empty list then really means none). */
    boolean isConnected();

    /**
     * What an operator should know of this registry now (its address, connection, session), as
     * name and value pairs for an endpoint to show. The default says only whether it is connected.
     */
    default Map<String, Object> describe() {
        return Map.of("connected", isConnected());
    }

    /**
     * The interface names providers have registered, sorted: what a tool lists without knowing a
     * service first ({@code xrpc list --registry}). Anyone who may write the registry may add a
     * name; a subscription, not this list, decides whom a call reaches.
     *
     * @throws UnsupportedOperationException where this registry cannot list them (the default)
     */
    default List<String> interfaceNames() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot list the services registered in it");
    }

    /**
     * The keys (version and group) under which providers of {@code interfaceName} are registered
     * now, sorted: what an error names when a consumer asked for another one, as Dubbo's "no
     * provider" names the versions it found.
     *
     * @throws UnsupportedOperationException where this registry cannot list them (the default)
     */
    default List<ServiceKey> keysOf(String interfaceName) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot list the keys registered in it");
    }

    /**
     * This consumer's place among the consumers of its application that subset {@code key}
     * through this registry: the supplier answers null while it is not known. The first call for
     * a service makes this consumer known to the others (the ZooKeeper registry writes one
     * ephemeral node for it and follows the others with one watch) without waiting; later calls
     * return the same supplier. The default knows no peers: subsetting then needs a place
     * configured.
     */
    default Supplier<PeerPosition> peers(ServiceKey key) {
        return () -> null;
    }

    @Override
    void close();

    /** Receives provider lists. */
    @FunctionalInterface
    interface Listener {
        void onChange(List<ServiceInstance> instances);
    }

    /** A live subscription; closing it stops the listener. */
    interface Subscription extends AutoCloseable {
        /** The last known providers; empty until the first list arrived. */
        List<ServiceInstance> instances();

        @Override
        void close();
    }
}
