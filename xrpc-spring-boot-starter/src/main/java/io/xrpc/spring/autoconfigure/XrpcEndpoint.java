package io.xrpc.spring.autoconfigure;

import io.xrpc.client.ReferenceView;
import io.xrpc.client.RpcClient;
import io.xrpc.cluster.CallCounters;
import io.xrpc.registry.Registry;
import io.xrpc.server.ExportedService;
import io.xrpc.server.RpcServer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/xrpc}: what this application exports and references right now. The services
 * it exports (methods, accepted serializers, calls running); every reference (load balancer,
 * cluster, serializer, timeout, retries, the retry budget left, its calls, retries and hedges so
 * far) with the providers it sees and their state (connected,
 * connecting, set aside until when, calls in flight); the registry's connection and session; the
 * limits in force. Read-only; like every endpoint but health it is not exposed over HTTP until
 * {@code management.endpoints.web.exposure.include} names {@code xrpc}. It shows addresses and
 * service names, no credentials and no call data.
 */
@Endpoint(id = "xrpc", defaultAccess = Access.READ_ONLY)
public class XrpcEndpoint {
    private final XrpcProperties properties;
    private final RpcServiceExporter exporter;
    private final RpcReferenceInjector references;
    private final ObjectProvider<Registry> registry;

    public XrpcEndpoint(
            XrpcProperties properties,
            RpcServiceExporter exporter,
            RpcReferenceInjector references,
            ObjectProvider<Registry> registry) {
        this.properties = properties;
        this.exporter = exporter;
        this.references = references;
        this.registry = registry;
    }

    /** Everything at once: a snapshot, built on each read. */
    @ReadOperation
    public Descriptor xrpc() {
        RpcServer server = exporter.server();
        Server s = null;
        if (server != null && server.isRunning()) {
            String address;
            try {
                address = server.advertisedEndpoint().toString();
            } catch (IllegalStateException e) {
                address = "not listening"; // closed between the two reads
            }
            s = new Server(
                    address,
                    server.connectionCount(),
                    server.inFlight(),
                    server.pendingOutputBytes(),
                    server.authenticationRefusals(),
                    server.authenticationClosures(),
                    server.services().stream().map(XrpcEndpoint::service).toList());
        } else if (exporter.hasServices()) {
            s = new Server("not listening", 0, 0, 0, 0, 0, List.of());
        }
        RpcClient client = references.clientIfCreated();
        List<Reference> refs = client == null
                ? List.of()
                : client.references().stream().map(XrpcEndpoint::reference).toList();
        Registry r = registry.getIfAvailable();
        return new Descriptor(s, refs, r == null ? null : r.describe(), limits());
    }

    private static Service service(ExportedService e) {
        return new Service(
                e.key().toString(),
                e.serviceInterface(),
                e.methods(),
                e.nonBlocking(),
                e.serializers().isEmpty() ? List.of("any") : e.serializers(),
                e.inFlight());
    }

    private static Reference reference(ReferenceView v) {
        List<Provider> providers = v.providers().stream()
                .map(p -> new Provider(
                        p.endpoint().toString(),
                        p.state().name(),
                        p.openConnections(),
                        p.activeCalls(),
                        p.setAsideUntil(),
                        p.serializers().isEmpty() ? List.of("any") : p.serializers()))
                .toList();
        return new Reference(
                v.key().toString(),
                v.serviceInterface(),
                v.source(),
                v.loadBalancer(),
                v.cluster(),
                v.serializer(),
                v.compressor(),
                v.timeout().toMillis(),
                v.retries(),
                Double.isInfinite(v.retryBudget()) ? null : v.retryBudget(),
                v.counters(),
                providers.size(),
                providers);
    }

    private Map<String, Object> limits() {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("maxFrameLengthBytes", properties.maxFrameLength().toBytes());
        l.put("maxObjectsPerMessage", properties.maxObjectsPerMessage());
        l.put("maxDepth", properties.maxDepth());
        l.put("compressThresholdBytes", properties.compressThreshold().toBytes());
        l.put("heartbeatIntervalMillis", properties.heartbeatInterval().toMillis());
        l.put(
                "writeBufferLowWaterMarkBytes",
                properties.writeBuffer().lowWaterMark().toBytes());
        l.put(
                "writeBufferHighWaterMarkBytes",
                properties.writeBuffer().highWaterMark().toBytes());
        l.put("typeCheck", properties.typeCheck().name());
        XrpcProperties.Server s = properties.server();
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("executorThreads", s.executorThreads());
        server.put("executorQueue", s.executorQueue());
        server.put("callThreads", s.callThreads().name());
        server.put("maxConnections", s.maxConnections());
        server.put("maxConnectionsPerAddress", s.maxConnectionsPerAddress());
        server.put("frameTimeoutMillis", s.frameTimeout().toMillis());
        server.put("authenticationTimeoutMillis", s.authenticationTimeout().toMillis());
        server.put("maxAuthenticationFailures", s.maxAuthenticationFailures());
        server.put("errorDetails", s.errorDetails().name());
        server.put("reflection", s.reflection());
        // Unset, the server derives it (RpcServer.Builder.maxRequestMemory): not derived again here.
        server.put(
                "maxRequestMemoryBytes",
                s.maxRequestMemory() == null ? "default" : s.maxRequestMemory().toBytes());
        server.put("shutdownGraceMillis", s.shutdownGrace().toMillis());
        server.put("unregisterDelayMillis", s.unregisterDelay().toMillis());
        l.put("server", server);
        XrpcProperties.Client c = properties.client();
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("timeoutMillis", c.timeout().toMillis());
        client.put("retries", c.retries());
        client.put("connectionsPerEndpoint", c.connectionsPerEndpoint());
        client.put("maxPendingCalls", c.maxPendingCalls());
        client.put("maxPendingRequestBytes", c.maxPendingRequestBytes().toBytes());
        client.put("outlierConsecutiveFailures", c.outlierDetection().consecutiveFailures());
        client.put(
                "outlierBaseEjectionMillis", c.outlierDetection().baseEjection().toMillis());
        client.put(
                "outlierMaxEjectionMillis", c.outlierDetection().maxEjection().toMillis());
        client.put("pingTimeoutMillis", c.pingTimeout().toMillis());
        if (c.attemptTimeout() != null) {
            client.put("attemptTimeoutMillis", c.attemptTimeout().toMillis());
        }
        l.put("client", client);
        return l;
    }

    /**
     * The endpoint's answer.
     *
     * @param server     the provider side, {@code null} when this application exports nothing
     * @param references every reference, in the order made (none before the first is injected)
     * @param registry   the registry's own description, {@code null} without a registry
     * @param limits     the limits in force, from {@code xrpc.*}
     */
    public record Descriptor(
            Server server, List<Reference> references, Map<String, Object> registry, Map<String, Object> limits) {}

    /**
     * The server: where consumers reach it, its connections, calls and queued output, the calls
     * its authenticator refused and the connections closed for carrying no authenticated call
     * (since start), its services.
     */
    public record Server(
            String address,
            int connections,
            int inFlight,
            long pendingOutputBytes,
            long authenticationRefusals,
            long authenticationClosures,
            List<Service> services) {}

    /** One exported service. */
    public record Service(
            String key,
            String serviceInterface,
            List<String> methods,
            List<String> nonBlocking,
            List<String> serializers,
            long inFlight) {}

    /**
     * One reference and the providers it sees now. {@code retryBudget}: tokens left (retries and
     * hedges stop at half the bucket), {@code null} when not throttled; {@code counters}: its
     * calls, retries, throttled retries, hedges and hedges that answered first.
     */
    public record Reference(
            String key,
            String serviceInterface,
            String source,
            String loadBalancer,
            String cluster,
            String serializer,
            String compressor,
            long timeoutMillis,
            int retries,
            Double retryBudget,
            CallCounters.Snapshot counters,
            int providerCount,
            List<Provider> providers) {}

    /**
     * One provider as a reference sees it. {@code state}: CONNECTED, CONNECTING, SET_ASIDE (until
     * {@code setAsideUntil}: connects failed or calls went unanswered) or IDLE (connects on the next call).
     */
    public record Provider(
            String address,
            String state,
            int connections,
            int activeCalls,
            Instant setAsideUntil,
            List<String> serializers) {}
}
