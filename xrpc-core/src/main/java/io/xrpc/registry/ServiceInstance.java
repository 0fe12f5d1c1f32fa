package io.xrpc.registry;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One provider of one service, as it is registered and discovered.
 *
 * <p>A registry may share one discovered instance between the lists of every service a provider
 * serves alike (the same weight, serializers and metadata), so that a consumer holds what a
 * provider says once rather than once per service: such an instance has no {@code serviceKey}
 * (the list it is in is one service's, and the call's {@code Invocation.serviceKey()} names it).
 * ZooKeeper's per-instance layout does so; that is how a consumer following 20 services of a
 * fleet holds under 200 bytes per instance (docs/REGISTRY.md).
 *
 * @param serviceKey  the service; null in a discovered instance shared between services (above)
 * @param endpoint    where the provider listens (its advertised host, not a wildcard)
 * @param weight      relative share of calls for weighted load balancers, 1 to 10000 (default 100)
 * @param serializers serializer names the provider accepts, empty meaning any
 * @param metadata    free-form string pairs, kept small: they travel in the registry node
 */
public record ServiceInstance(
        ServiceKey serviceKey, Endpoint endpoint, int weight, List<String> serializers, Map<String, String> metadata) {
    public static final int DEFAULT_WEIGHT = 100;

    public ServiceInstance {
        Objects.requireNonNull(endpoint, "endpoint");
        if (weight < 1 || weight > 10_000) {
            throw new IllegalArgumentException("weight: " + weight + " (expected: 1-10000)");
        }
        serializers = List.copyOf(serializers == null ? List.of() : serializers);
        metadata = Map.copyOf(metadata == null ? Map.of() : metadata);
    }

    /**
     * A discovered instance shared between the lists of the services {@code template}'s provider
     * serves alike: {@code template}'s weight, serializers and metadata (their lists and maps
     * shared, not copied) at {@code endpoint}, without a service key.
     */
    public static ServiceInstance shared(Endpoint endpoint, ServiceInstance template) {
        return new ServiceInstance(null, endpoint, template.weight, template.serializers, template.metadata);
    }

    public static ServiceInstance of(ServiceKey key, Endpoint endpoint) {
        return new ServiceInstance(key, endpoint, DEFAULT_WEIGHT, List.of(), Map.of());
    }

    /** Whether this provider takes requests in {@code serializer}. */
    public boolean accepts(String serializer) {
        return serializers.isEmpty() || serializers.contains(serializer);
    }
}
