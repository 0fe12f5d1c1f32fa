package io.xrpc.config;

import io.xrpc.cluster.Cluster;
import io.xrpc.common.Extension;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.NamedExtensions;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.serialize.SerializerProvider;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The names of the extensions visible to this thread's class loader, as {@link ServiceLoader}
 * finds them (built-ins and the application's own alike), for checking a configured name before
 * a client or server is built. Looked up anew on each call; meant for start-up.
 */
public final class Extensions {
    private Extensions() {
    }

    public static SortedSet<String> serializers() {
        return names(SerializerProvider.class);
    }

    public static SortedSet<String> compressors() {
        return names(Compressor.class);
    }

    public static SortedSet<String> loadBalancers() {
        return names(LoadBalancerProvider.class);
    }

    public static SortedSet<String> clusters() {
        return names(Cluster.class);
    }

    private static SortedSet<String> names(Class<? extends Extension> type) {
        SortedSet<String> names = new TreeSet<>();
        ServiceLoader.load(type, NamedExtensions.loader()).forEach(e -> names.add(e.name()));
        return names;
    }
}
