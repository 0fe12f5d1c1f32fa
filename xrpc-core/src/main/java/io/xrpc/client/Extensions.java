package io.xrpc.client;

import io.xrpc.cluster.Cluster;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.NamedExtensions;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.serialize.SerializerProvider;
import java.util.ServiceLoader;
import java.util.SortedSet;

/**
 * The names of the extensions visible to this thread's class loader, as {@link ServiceLoader}
 * finds them (built-ins and the application's own alike), for checking a configured name before
 * a client or server is built. Looked up anew on each call; meant for start-up.
 */
public final class Extensions {
    private Extensions() {}

    public static SortedSet<String> serializers() {
        return NamedExtensions.load("serializer", SerializerProvider.class).names();
    }

    public static SortedSet<String> compressors() {
        return NamedExtensions.load("compressor", Compressor.class).names();
    }

    public static SortedSet<String> loadBalancers() {
        return NamedExtensions.load("load balancer", LoadBalancerProvider.class).names();
    }

    public static SortedSet<String> clusters() {
        return NamedExtensions.load("cluster", Cluster.class).names();
    }
}
