package io.xrpc.registry;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One provider of one service, as it is registered and discovered.
 *
 * @param serviceKey  the service
 * @param endpoint    where the provider listens (its advertised host, not a wildcard)
 * @param weight      relative share of calls for weighted load balancers, 1 to 10000 (default 100)
 * @param serializers serializer names the provider accepts, empty meaning any
 * @param metadata    free-form string pairs, kept small: they travel in the registry node
 */
public record ServiceInstance(
        ServiceKey serviceKey, Endpoint endpoint, int weight, List<String> serializers, Map<String, String> metadata) {
    public static final int DEFAULT_WEIGHT = 100;

    public ServiceInstance {
        Objects.requireNonNull(serviceKey, "serviceKey");
        Objects.requireNonNull(endpoint, "endpoint");
        if (weight < 1 || weight > 10_000) {
            throw new IllegalArgumentException("weight: " + weight + " (expected: 1-10000)");
        }
        serializers = List.copyOf(serializers == null ? List.of() : serializers);
        metadata = Map.copyOf(metadata == null ? Map.of() : metadata);
    }

    public static ServiceInstance of(ServiceKey key, Endpoint endpoint) {
        return new ServiceInstance(key, endpoint, DEFAULT_WEIGHT, List.of(), Map.of());
    }

    /** Whether this provider takes requests in {@code serializer}. */
    public boolean accepts(String serializer) {
        return serializers.isEmpty() || serializers.contains(serializer);
    }
}
