package io.xrpc.spring.autoconfigure;

import io.xrpc.client.RpcClient;
import io.xrpc.registry.Registry;
import io.xrpc.server.RpcServer;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code xrpc} health: DOWN when services are exported but the server is not listening. Details:
 * the server's address, connections, calls in flight and exported services; for each reference,
 * how many providers it sees; the registry's connection. The
 * registry's state is a detail, not a reason for DOWN: while ZooKeeper is away calls go on to
 * cached providers, and a liveness probe must not restart every consumer over it.
 */
public class XrpcHealthIndicator extends AbstractHealthIndicator {
    private final RpcServiceExporter exporter;
    private final RpcReferenceInjector references;
    private final ObjectProvider<Registry> registry;

    public XrpcHealthIndicator(
            RpcServiceExporter exporter, RpcReferenceInjector references, ObjectProvider<Registry> registry) {
        super("XRpc health check failed");
        this.exporter = exporter;
        this.references = references;
        this.registry = registry;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        RpcServer server = exporter.server();
        if (exporter.hasServices()) {
            if (server == null) {
                up = false;
                builder.withDetail("server", "not listening");
            } else {
                builder.withDetail("server", server.advertisedEndpoint().toString());
                builder.withDetail("connections", server.connectionCount());
                builder.withDetail("inFlight", server.inFlight());
                builder.withDetail(
                        "services",
                        server.exportedServices().stream()
                                .map(Object::toString)
                                .sorted()
                                .toList());
            }
        }
        RpcClient client = references.clientIfCreated();
        if (client != null) {
            // A reference without providers is a detail, not DOWN: it may be waiting for providers
            // that start later, and restarting this consumer would not bring them.
            Map<String, Integer> providers = new TreeMap<>();
            client.providerCounts().forEach(e -> providers.merge(e.getKey(), e.getValue(), Math::max));
            builder.withDetail("references", providers);
        }
        Registry r = registry.getIfAvailable();
        if (r != null) {
            builder.withDetail("registry", r.isConnected() ? "connected" : "disconnected");
        }
        if (up) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
