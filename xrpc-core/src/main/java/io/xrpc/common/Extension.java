package io.xrpc.common;

/**
 * The one shape of XRpc's extension points: serializers ({@code SerializerProvider}), compressors,
 * load balancers ({@code LoadBalancerProvider}), cluster strategies and registries
 * ({@code RegistryProvider}). Each is found with {@link java.util.ServiceLoader} through the
 * thread's context class loader (XRpc's own when there is none), listed in
 * {@code META-INF/services/<its interface>}, and chosen by {@link #name()}; where two share a name
 * the higher {@link #priority()} wins (logged at WARN, naming both), so an application can replace
 * a built-in without removing it, and two of one name and one priority stop start-up naming both.
 * A name nothing provides fails listing the names found.
 */
public interface Extension {

    /** The stable lower-case name configuration uses, such as {@code kryo} or {@code zookeeper}. */
    String name();

    /** Ties between extensions of one name go to the higher priority; built-ins use 0. */
    default int priority() {
        return 0;
    }
}
