package io.xrpc.server;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServerReflection;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.config.ServiceOptions;
import io.xrpc.internal.LocalAddress;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.transport.ServerTransport;
import io.xrpc.transport.netty.NettyServerTransport;
import io.xrpc.transport.netty.NettyVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports service implementations over XRpc.
 *
 * <pre>{@code
 * RpcServer server = RpcServer.builder()
 *         .port(20880)
 *         .service(Greeter.class, new GreeterImpl())
 *         .build()
 *         .start();
 * }</pre>
 *
 * <p>Only the methods of the exported interface can be called, and calls run on a bounded
 * business executor: when its threads and queue are full a call is answered
 * {@link io.xrpc.common.RpcStatus#SERVER_BUSY} at once. {@link #close()} is graceful: it stops
 * accepting, lets the calls in flight finish (up to the shutdown grace), then closes.
 * Thread-safe.
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RpcServer.class);
    /** Default of {@link Builder#frameTimeout}. */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(10);
    /** Default of {@link Builder#maxConnections}. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /**
     * Default of {@link Builder#executorQueue}: a burst read from one connection waits for a thread
     * (bounded by its deadline) instead of being refused while threads are finishing their calls.
     */
    public static final int DEFAULT_EXECUTOR_QUEUE = 1024;
    /** Default of {@link Builder#authenticationTimeout}. */
    public static final Duration DEFAULT_AUTHENTICATION_TIMEOUT = Duration.ofSeconds(5);
    /** Default of {@link Builder#maxAuthenticationFailures}. */
    public static final int DEFAULT_MAX_AUTHENTICATION_FAILURES = 3;

    private final ServerConfig config;
    private final ServiceDispatcher dispatcher;
    private final ServerTransport transport;
    private final ClassAllowList allowList;
    private final SerializerRegistry serializers;
    private final Registration registration;
    private final Map<ServiceKey, ServiceOptions> exported = new ConcurrentHashMap<>();
    private volatile boolean started;
    private volatile boolean closed;

    private RpcServer(ServerConfig c, ClassAllowList allowList, List<Export<?>> exports) {
        this.config = c;
        this.allowList = allowList;
        this.dispatcher = new ServiceDispatcher(c.interceptors, allowList);
        this.serializers = SerializerRegistry.load(allowList, c.readLimits);
        List<String> serializerNames =
                serializers.all().stream().map(Serializer::name).toList();
        if (!serializers.missing().isEmpty()) {
            log.info("Serializers {}; without their libraries: {}", serializerNames, serializers.missing());
        }
        for (Export<?> e : exports) {
            exportChecked(e);
        }
        if (c.reflection) { // served, not registered: a tool asks the provider it is talking to
            dispatcher.export(
                    ServerReflection.class,
                    new Reflection(dispatcher, serializerNames),
                    ServiceOptions.builder().build(),
                    false);
            if (c.http()) { // gRPC's own reflection, for grpcurl and its kind (docs/GRPC.md)
                dispatcher.export(
                        GrpcReflection.class,
                        new GrpcReflectionService(dispatcher),
                        ServiceOptions.builder().build(),
                        false);
            }
        }
        this.transport = new NettyServerTransport(
                c, dispatcher, new CallPolicy(c.authenticator, c.errorDetails), serializers, CompressorRegistry.load());
        // Last: a bad setting above (TLS keys, say) must fail before a registry session is opened.
        // "Any serializer" is registered as the ones present when some library is absent.
        this.registration = new Registration(c, serializers.missing().isEmpty() ? List.of() : serializerNames);
    }

    /** Checks a service against the serializers, exports it and logs it; returns its key. */
    private <T> ServiceKey exportChecked(Export<T> e) {
        for (String name : e.options().serializers()) {
            serializers.get(name); // fails on a name this server does not have, listing those it has
        }
        checkTypes(e.type(), e.options());
        grpcContract(e.type(), e.options());
        ServiceKey key = dispatcher.export(e.type(), e.implementation(), e.options());
        exported.put(key, e.options());
        log.info(
                "Exported {} ({} methods, serializers {})",
                key,
                e.type().getMethods().length,
                e.options().serializers().isEmpty() ? "any" : e.options().serializers());
        return key;
    }

    /**
     * Asks each serializer the service accepts about the types it exchanges. A service that names
     * its serializers fails or warns as {@link Builder#typeCheck} says; one that takes any only
     * warns, since its callers may never use the serializer that cannot carry a type.
     */
    private void checkTypes(Class<?> serviceInterface, ServiceOptions options) {
        if (config.typeCheck == TypeCheck.Mode.OFF) {
            return;
        }
        serializers.allowList().allowTypesOf(serviceInterface); // record schemas first (protostuff)
        List<String> problems = new ArrayList<>();
        boolean named = !options.serializers().isEmpty();
        for (Serializer s :
                named ? options.serializers().stream().map(serializers::get).toList() : serializers.all()) {
            problems.addAll(TypeCheck.problems(serviceInterface, s));
        }
        if (problems.isEmpty()) {
            return;
        }
        if (named && config.typeCheck == TypeCheck.Mode.FAIL) {
            throw new TypeCheck.UnsupportedTypeException("cannot export " + serviceInterface.getName() + ": "
                    + String.join("; ", problems) + " (typeCheck(WARN) exports it anyway)");
        }
        for (String p : problems) {
            log.warn("Exporting {}: {}; calls in that serializer will fail", serviceInterface.getName(), p);
        }
    }

    /**
     * Says at export which methods gRPC callers cannot reach, and why: the derived contract leaves
     * out what protobuf cannot express (docs/GRPC.md), and those methods stay callable over JSON.
     */
    private void grpcContract(Class<?> serviceInterface, ServiceOptions options) {
        if (!config.http()
                || (!options.serializers().isEmpty() && !options.serializers().contains("protobuf"))) {
            return;
        }
        List<String> left;
        try {
            left = ProtoContract.of(serviceInterface).problems();
        } catch (RuntimeException | LinkageError e) {
            log.warn(
                    "Exporting {}: its gRPC contract could not be derived, so gRPC callers cannot reach it: {}",
                    serviceInterface.getName(),
                    e.toString());
            return;
        }
        if (!left.isEmpty()) {
            log.info(
                    "Exporting {}: over gRPC, {} of its methods are left out (callable over JSON and binary): {}",
                    serviceInterface.getName(),
                    left.size(),
                    String.join("; ", left));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Binds the port; returns this server. Fails if the address is in use. */
    public synchronized RpcServer start() {
        if (started) {
            throw new IllegalStateException("server already started on " + transport.endpoint());
        }
        try {
            transport.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            registration.close();
            throw new IllegalStateException("interrupted while binding " + config.host + ":" + config.port, e);
        } catch (RuntimeException e) {
            registration.close(); // a server that never listened must not keep a registry session
            throw e; // the transport names the address, and a port in use as such
        }
        started = true;
        log.info(
                "XRpc server listening on {}:{}{}",
                config.host,
                transport.endpoint().port(),
                exported.isEmpty() ? "" : ", serving " + exported.keySet());
        // Only now, listening, may consumers hear of us.
        try {
            registration.registerAll(exported, advertisedEndpoint());
        } catch (RuntimeException e) {
            close(); // do not keep a bound port and live threads for a server nobody can find
            throw e;
        }
        return this;
    }

    /** Exports another service; on a started server it is registered at once. */
    public synchronized <T> ServiceKey export(Class<T> serviceInterface, T implementation, ServiceOptions options) {
        if (closed) {
            throw new IllegalStateException("server " + transport.endpoint() + " is closed");
        }
        ServiceKey key = exportChecked(new Export<>(serviceInterface, implementation, options));
        if (started) {
            registration.register(key, options, advertisedEndpoint());
        }
        return key;
    }

    /**
     * Unregisters a service, waits for consumers to stop routing here (see
     * {@link Builder#unregisterDelay}), then stops serving it; calls that still arrive fail with
     * SERVICE_NOT_FOUND, which failover retries.
     */
    public synchronized boolean unexport(ServiceKey key) {
        if (registration.withdraw(key)) {
            registration.awaitConsumersLeft(transport);
        }
        exported.remove(key);
        boolean was = dispatcher.unexport(key);
        if (was) {
            log.info("Unexported {}", key);
        }
        return was;
    }

    /** The services this server exports, in no particular order. */
    public Set<ServiceKey> exportedServices() {
        return Set.copyOf(exported.keySet());
    }

    /**
     * The services exported now, sorted by key, each with its methods, accepted serializers and
     * calls running: a snapshot for operators (the Spring Boot starter's Actuator endpoint).
     */
    public List<ExportedService> services() {
        return dispatcher.describe();
    }

    /** Whether it is listening: started and not closed. */
    public boolean isRunning() {
        return started && !closed;
    }

    /** The address registered for consumers: {@code advertisedHost} and the bound port. */
    public Endpoint advertisedEndpoint() {
        Endpoint bound = transport.endpoint();
        if (bound == null) {
            throw new IllegalStateException("server not started");
        }
        String host = config.advertisedHost != null
                ? config.advertisedHost
                : LocalAddress.isWildcard(bound.host()) ? LocalAddress.pick() : bound.host();
        return new Endpoint(host, bound.port());
    }

    /**
     * The address clients can use: the bound host and the real port. A wildcard bind
     * ({@code 0.0.0.0}, {@code ::}) reports {@code 127.0.0.1}.
     */
    public Endpoint endpoint() {
        Endpoint e = transport.endpoint();
        if (e == null) {
            throw new IllegalStateException("server not started");
        }
        if (LocalAddress.isWildcard(e.host())) {
            return new Endpoint("127.0.0.1", e.port());
        }
        return e;
    }

    public int port() {
        return endpoint().port();
    }

    /** The classes this server's serializers may construct from requests. */
    public ClassAllowList allowList() {
        return allowList;
    }

    /** Calls accepted and not yet answered. */
    public int inFlight() {
        return transport.inFlight();
    }

    /** Open client connections. */
    public int connectionCount() {
        return transport.connectionCount();
    }

    /**
     * Bytes held now in requests over 16 KiB, arriving or read and not yet run, over every
     * connection: at most {@link Builder#maxRequestMemory}.
     */
    public long requestMemoryBytes() {
        return transport.requestMemoryBytes();
    }

    /** Calls the {@link Builder#authenticator} refused since start. */
    public long authenticationRefusals() {
        return transport.authenticationRefusals();
    }

    /**
     * Connections closed since start for carrying no authenticated call: none within the
     * {@link Builder#authenticationTimeout}, {@link Builder#maxAuthenticationFailures} refused in a
     * row, or the oldest such when a new connection needed its place at {@link Builder#maxConnections}.
     */
    public long authenticationClosures() {
        return transport.authenticationClosures();
    }

    /**
     * Encoded responses waiting for clients to read them, over all connections. While one
     * connection holds more than the write buffer's high-water mark, the server reads no more
     * requests from it.
     */
    public long pendingOutputBytes() {
        return transport.pendingOutputBytes();
    }

    /**
     * Stops accepting connections, answers new calls with UNAVAILABLE (safe to retry elsewhere),
     * waits up to the shutdown grace for calls in flight and for clients to close their
     * connections, then closes what is left and stops its threads. If the calling thread is
     * interrupted it stops waiting, still shuts everything down, and stays interrupted.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Consumers stop routing here first: they learn it from the registry, then close.
        try {
            if (registration.withdrawAll()) {
                registration.awaitConsumersLeft(transport);
            }
            int left = transport.close(config.shutdownGrace);
            if (left > 0) {
                log.warn(
                        "Closed {} with {} calls still running after the {} grace period",
                        transport.endpoint(),
                        left,
                        config.shutdownGrace);
            }
        } finally {
            registration.close();
        }
        log.info("XRpc server {} stopped", transport.endpoint());
    }

    private record Export<T>(Class<T> type, T implementation, ServiceOptions options) {}

    /**
     * A server's services and settings; every setting has a default ({@link ServerSettings} and
     * {@link io.xrpc.config.EndpointBuilder} document them). Not thread-safe.
     */
    public static final class Builder extends ServerSettings<Builder> {
        private final List<Export<?>> exports = new ArrayList<>();

        private Builder() {}

        /** Exports {@code implementation} as {@code serviceInterface} with no version or group. */
        public <T> Builder service(Class<T> serviceInterface, T implementation) {
            return service(serviceInterface, implementation, ServiceOptions.defaults());
        }

        /** Exports {@code implementation} as {@code serviceInterface} with the version, group and weight given. */
        public <T> Builder service(Class<T> serviceInterface, T implementation, ServiceOptions options) {
            exports.add(new Export<>(
                    Objects.requireNonNull(serviceInterface, "serviceInterface"),
                    Objects.requireNonNull(implementation, "implementation"),
                    Objects.requireNonNull(options, "options")));
            return this;
        }

        /** Checks and freezes the settings; building twice gives two independent servers. */
        public RpcServer build() {
            NettyVersion.require();
            return new RpcServer(config(), allowListCopy(), List.copyOf(exports));
        }
    }
}
