package io.xrpc.spring.autoconfigure;

import io.xrpc.registry.Registry;
import io.xrpc.server.RpcServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code xrpc} health: DOWN when services are exported but the server is not listening. The
 * registry's state is a detail, not a reason for DOWN: while ZooKeeper is away calls go on to
 * cached providers, and a liveness probe must not restart every consumer over it.
 */
public class XrpcHealthIndicator extends AbstractHealthIndicator {
    private final RpcServiceExporter exporter;
    private final ObjectProvider<Registry> registry;

    public XrpcHealthIndicator(RpcServiceExporter exporter, ObjectProvider<Registry> registry) {
        super("XRpc health check failed");
        this.exporter = exporter;
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
            }
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
