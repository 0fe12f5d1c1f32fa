package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServerReflection;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Finding a provider and asking it what it serves: shared by the {@code xrpc} commands and the
 * stress tool's {@code --target} mode.
 */
public final class Providers {
    private Providers() {}

    /**
     * A client with {@code access}'s TLS and token, a deadline and connect timeout of
     * {@code timeout}, and {@code registry} when given (null: references name their address).
     */
    public static RpcClient client(String registry, String address, Access access, Duration timeout) throws Exception {
        access.checkPlaintextToken(registry != null ? null : address);
        RpcClient.Builder b = RpcClient.builder().timeout(timeout).connectTimeout(timeout);
        if (registry != null) {
            b.registry(registry);
        }
        return access.applyTo(b).build();
    }

    /** What the reflection of a provider of {@code service} says of it. */
    static Map<String, Object> describe(RpcClient client, Target target, String service) {
        return describe(client, target.providerOf(service), target.access.key(service), target.timeout);
    }

    /**
     * What the reflection service at {@code address} says of {@code key}; a service it does not
     * export fails {@link RpcStatus#SERVICE_NOT_FOUND}, naming those it does.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> describe(RpcClient client, String address, ServiceKey key, Duration timeout) {
        try {
            return (Map<String, Object>) client.generic(
                            ServerReflection.class.getName(),
                            ReferenceOptions.builder()
                                    .address(address)
                                    .timeout(timeout)
                                    .build())
                    .invoke("describe", List.of("java.lang.String"), List.of(key.toString()));
        } catch (RpcException e) {
            if (e.status() == RpcStatus.APPLICATION_ERROR
                    && IllegalArgumentException.class.getName().equals(e.remoteClassName())) {
                throw new RpcException(RpcStatus.SERVICE_NOT_FOUND, address + ": " + e.remoteMessage());
            }
            throw e;
        }
    }

    /** The address of the first provider of {@code key} that {@code registry} lists. */
    public static String providerOf(String registry, ServiceKey key) {
        try (Registry r = Registries.create(registry);
                ServiceDiscovery.Subscription s = r.subscribe(key, l -> {})) {
            List<ServiceInstance> found = s.instances();
            if (found.isEmpty()) {
                String where = RegistryConfig.mask(registry) + (r.isConnected() ? "" : " (not connected)");
                List<ServiceKey> others = List.of();
                try {
                    others = r.keysOf(key.interfaceName());
                } catch (RuntimeException cannot) {
                    // this registry cannot list them: say only what is missing
                }
                if (!others.isEmpty()) {
                    // Another version or group is there: waiting would not help, the key is wrong.
                    throw new RpcException(
                            RpcStatus.SERVICE_NOT_FOUND,
                            "no provider of " + key + " in " + where
                                    + "; registered: "
                                    + String.join(
                                            ", ",
                                            others.stream()
                                                    .map(ServiceKey::toString)
                                                    .toList())
                                    + " (--service-version and --group choose one)");
                }
                throw new RpcException(RpcStatus.UNAVAILABLE, "no provider of " + key + " in " + where);
            }
            return found.get(0).endpoint().toString();
        }
    }
}
