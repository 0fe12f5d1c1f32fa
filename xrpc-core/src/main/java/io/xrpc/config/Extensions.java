package io.xrpc.config;

import io.xrpc.cluster.Cluster;
import io.xrpc.compress.Compressor;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.registry.RegistryProvider;
import io.xrpc.serialize.SerializerProvider;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The names of the extensions visible to this thread's class loader, as {@link ServiceLoader}
 * finds them (built-ins and the application's own alike), for checking a configured name before
 * a client or server is built. Looked up anew on each call; meant for start-up.
 */
public final class Extensions {
    private Extensions() {
    }

    public static SortedSet<String> serializers() {
        return names(SerializerProvider.class, SerializerProvider::name);
    }

    public static SortedSet<String> compressors() {
        return names(Compressor.class, Compressor::name);
    }

    public static SortedSet<String> loadBalancers() {
        return names(LoadBalancerProvider.class, LoadBalancerProvider::name);
    }

    public static SortedSet<String> clusters() {
        return names(Cluster.class, Cluster::name);
    }

    public static SortedSet<String> registrySchemes() {
        return names(RegistryProvider.class, RegistryProvider::scheme);
    }

    private static <T> SortedSet<String> names(Class<T> type, Function<T, String> name) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        SortedSet<String> names = new TreeSet<>();
        ServiceLoader.load(type, loader != null ? loader : Extensions.class.getClassLoader())
                .forEach(e -> names.add(name.apply(e)));
        return names;
    }
}
