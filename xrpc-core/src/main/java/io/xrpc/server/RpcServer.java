package io.xrpc.server;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.config.ServiceOptions;
import io.xrpc.internal.Checks;
import io.xrpc.internal.LocalAddress;
import io.xrpc.registry.Registries;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.ServiceRegistry;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.netty.NettyVersion;
import io.xrpc.transport.ServerTransport;
import io.xrpc.config.TransportConfig;
import io.xrpc.transport.netty.NettyServerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
    /** Default of {@link Builder#authenticationTimeout}. */
    public static final Duration DEFAULT_AUTHENTICATION_TIMEOUT = Duration.ofSeconds(5);
    /** Default of {@link Builder#maxAuthenticationFailures}. */
    public static final int DEFAULT_MAX_AUTHENTICATION_FAILURES = 3;

    private final ServerConfig config;
    private final ServiceDispatcher dispatcher;
    private final ServerTransport transport;
    private final ClassAllowList allowList;
    private final SerializerRegistry serializers;
    private final ServiceRegistry registry;
    private final boolean ownsRegistry;
    private final Map<ServiceKey, ServiceInstance> registered = new ConcurrentHashMap<>();
    private final Map<ServiceKey, ServiceOptions> exported = new ConcurrentHashMap<>();
    private volatile boolean started;
    private volatile boolean closed;

    private RpcServer(ServerConfig c, ClassAllowList allowList, List<Export<?>> exports) {
        this.config = c;
        this.allowList = allowList;
        this.dispatcher = new ServiceDispatcher(c.interceptors(), allowList, c.authenticator(), c.errorDetails());
        SerializerRegistry serializers = SerializerRegistry.load(allowList, c.readLimits());
        this.serializers = serializers;
        for (Export<?> e : exports) {
            checkSerializers(e.options());
            checkTypes(e.type(), e.options());
            ServiceKey key = e.exportTo(dispatcher);
            exported.put(key, e.options());
            logExport(key, e.type(), e.options());
        }
        this.transport = new NettyServerTransport(new NettyServerTransport.Settings(c.host(), c.port(), c.ioThreads(),
                c.executorThreads(), c.executorQueue(), c.callThreads().factory("xrpc-server-call"), c.frameTimeout(),
                c.maxConnections(), c.maxConnectionsPerAddress(), c.authenticator() != null,
                c.authenticationTimeout(), c.maxAuthenticationFailures(), c.maxRequestMemory(), c.transport()),
                dispatcher, serializers, CompressorRegistry.load());
        // Last: a bad setting above (TLS keys, say) must fail before a registry session is opened.
        if (c.registry() != null) {
            this.registry = c.registry();
            this.ownsRegistry = false;
        } else if (c.registryAddress() != null) {
            this.registry = Registries.create(c.registryAddress());
            this.ownsRegistry = true;
        } else {
            this.registry = null;
            this.ownsRegistry = false;
        }
    }

    /** Fails on a serializer name this server does not have, listing those it has. */
    private void checkSerializers(ServiceOptions options) {
        for (String name : options.serializers()) {
            serializers.get(name);
        }
    }

    /**
     * Asks each serializer the service accepts about the types it exchanges. A service that names
     * its serializers fails or warns as {@link Builder#typeCheck} says; one that takes any only
     * warns, since its callers may never use the serializer that cannot carry a type.
     */
    private void checkTypes(Class<?> serviceInterface, ServiceOptions options) {
        if (config.typeCheck() == TypeCheck.Mode.OFF) {
            return;
        }
        serializers.allowList().allowTypesOf(serviceInterface); // record schemas first (protostuff)
        List<String> problems = new ArrayList<>();
        boolean named = !options.serializers().isEmpty();
        for (Serializer s : named ? options.serializers().stream().map(serializers::get).toList() : serializers.all()) {
            problems.addAll(TypeCheck.problems(serviceInterface, s));
        }
        if (problems.isEmpty()) {
            return;
        }
        if (named && config.typeCheck() == TypeCheck.Mode.FAIL) {
            throw new TypeCheck.UnsupportedTypeException("cannot export " + serviceInterface.getName() + ": "
                    + String.join("; ", problems) + " (typeCheck(WARN) exports it anyway)");
        }
        for (String p : problems) {
            log.warn("Exporting {}: {}; calls in that serializer will fail", serviceInterface.getName(), p);
        }
    }

    private static void logExport(ServiceKey key, Class<?> serviceInterface, ServiceOptions options) {
        log.info("Exported {} ({} methods, serializers {})", key, serviceInterface.getMethods().length,
                options.serializers().isEmpty() ? "any" : options.serializers());
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
            closeOwnedRegistry();
            throw new IllegalStateException("interrupted while binding " + config.host() + ":" + config.port(), e);
        } catch (RuntimeException e) {
            closeOwnedRegistry(); // a server that never listened must not keep a registry session
            throw e; // the transport names the address, and a port in use as such
        }
        started = true;
        log.info("XRpc server listening on {}:{}{}", config.host(), transport.endpoint().port(),
                exported.isEmpty() ? "" : ", serving " + exported.keySet());
        // Only now, listening, may consumers hear of us.
        try {
            exported.forEach(this::register);
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
        checkSerializers(options);
        checkTypes(serviceInterface, options);
        ServiceKey key = dispatcher.export(serviceInterface, implementation, options);
        exported.put(key, options);
        logExport(key, serviceInterface, options);
        if (started) {
            register(key, options);
        }
        return key;
    }

    /**
     * Unregisters a service, waits the unregister delay so consumers' watches catch up, then stops
     * serving it; calls that still arrive fail with SERVICE_NOT_FOUND, which failover retries.
     */
    public synchronized boolean unexport(ServiceKey key) {
        ServiceInstance instance = registered.remove(key);
        if (instance != null) {
            registry.unregister(instance);
            if (!config.unregisterDelay().isZero()) {
                try {
                    Thread.sleep(config.unregisterDelay().toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        exported.remove(key);
        boolean was = dispatcher.unexport(key);
        if (was) {
            log.info("Unexported {}", key);
        }
        return was;
    }

    private void register(ServiceKey key, ServiceOptions options) {
        if (registry == null) {
            return;
        }
        ServiceInstance instance = new ServiceInstance(key, advertisedEndpoint(), options.weight(),
                options.serializers(), options.metadata());
        // Recorded first: a registry that fails now may still create it on reconnecting, and
        // close() must then withdraw it.
        registered.put(key, instance);
        registry.register(instance);
        log.info("Registered {} as {}", key, instance.endpoint());
    }

    /** The services this server exports, in no particular order. */
    public java.util.Set<ServiceKey> exportedServices() {
        return java.util.Set.copyOf(exported.keySet());
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
        String host = config.advertisedHost() != null ? config.advertisedHost()
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
        // Consumers stop routing here first; the delay lets their watches catch up.
        for (ServiceInstance instance : registered.values()) {
            try {
                registry.unregister(instance);
            } catch (RuntimeException e) {
                log.warn("Could not unregister {}", instance, e);
            }
        }
        registered.clear();
        try {
            boolean interrupted = false;
            if (registry != null && !config.unregisterDelay().isZero()) {
                try {
                    Thread.sleep(config.unregisterDelay().toMillis());
                } catch (InterruptedException e) {
                    interrupted = true; // wait no more, but still shut down
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            int left = transport.close(config.shutdownGrace());
            if (left > 0) {
                log.warn(
                        "Closed {} with {} calls still running after the {} grace period", transport.endpoint(), left,
                        config.shutdownGrace());
            }
        } finally {
            closeOwnedRegistry();
        }
        log.info("XRpc server {} stopped", transport.endpoint());
    }

    private void closeOwnedRegistry() {
        if (ownsRegistry) {
            registry.close();
        }
    }

    private record Export<T>(Class<T> type, T implementation, ServiceOptions options) {
        ServiceKey exportTo(ServiceDispatcher d) {
            return d.export(type, implementation, options);
        }
    }

    /** Server-wide settings; every one has a default. Not thread-safe. */
    public static final class Builder extends io.xrpc.config.EndpointBuilder<Builder> {
        private Authenticator authenticator;
        private ErrorDetails errorDetails = ErrorDetails.MESSAGE;
        private Duration authenticationTimeout = DEFAULT_AUTHENTICATION_TIMEOUT;
        private int maxAuthenticationFailures = DEFAULT_MAX_AUTHENTICATION_FAILURES;
        /** 0 until set: then half the max direct memory, and at least the frame limit. */
        private long maxRequestMemory;
        private String host = "0.0.0.0";
        private int port = 0;
        private int executorThreads = 200;
        private int executorQueue = 0;
        private CallThreads callThreads = CallThreads.PLATFORM;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private final List<ServerInterceptor> interceptors = new ArrayList<>();
        private final List<Export<?>> exports = new ArrayList<>();
        /** Parsed when given, so a bad address fails there; printed with its password masked. */
        private io.xrpc.registry.RegistryConfig registryAddress;
        private ServiceRegistry registry;
        private String advertisedHost;
        private Duration unregisterDelay = Duration.ZERO;
        private Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = 0;

        private Builder() {
            super(true, Runtime.getRuntime().availableProcessors());
        }

        /**
         * How long a frame may take to arrive whole once its first byte came; a peer slower than
         * that (one trickling a byte a second to hold the connection and its buffer) is
         * disconnected. Default 10 s.
         */
        public Builder frameTimeout(Duration timeout) {
            this.frameTimeout = Checks.checkPositive("frameTimeout", timeout);
            return this;
        }

        /**
         * Open connections this server accepts: default 10,000. One more is refused with a GOAWAY
         * saying why (its client sends its calls elsewhere) and one log line.
         */
        public Builder maxConnections(int n) {
            this.maxConnections = Checks.atLeast("maxConnections", n, 1);
            return this;
        }

        /**
         * Bytes the server may hold, over all connections, in requests over 16 KiB that are
         * arriving or were read and not yet run. A request that does not fit is answered
         * {@code SERVER_BUSY} (safe to retry elsewhere) and its bytes are skipped unread, so that
         * many connections each holding an almost complete 8 MiB frame cannot exhaust direct
         * memory. At least {@code maxFrameLength}, or no large request could ever be read.
         * Default: half the JVM's maximum direct memory, and at least {@code maxFrameLength}.
         */
        public Builder maxRequestMemory(long bytes) {
            this.maxRequestMemory = Checks.atLeast("maxRequestMemory", bytes, 16 * 1024L);
            return this;
        }

        /** Open connections from one remote address: default 0, no limit of its own. */
        public Builder maxConnectionsPerAddress(int n) {
            this.maxConnectionsPerAddress = Checks.atLeast("maxConnectionsPerAddress", n, 0);
            return this;
        }



        /**
         * Registers every exported service in the registry at {@code address}
         * ({@code zookeeper://host:2181,...}, {@code host:2181} or {@code embedded}) once the server
         * listens; the server opens the registry at build time and closes it with itself.
         */
        public Builder registry(String address) {
            this.registryAddress = io.xrpc.registry.RegistryConfig.builder(Objects.requireNonNull(address, "address")).build();
            this.registry = null;
            return this;
        }

        /** Registers through {@code registry}, which the caller keeps and closes. */
        public Builder registry(ServiceRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            this.registryAddress = null;
            return this;
        }

        /**
         * The host consumers are told to connect to. Default: the bound host, or when bound to
         * every interface, the first private IPv4 address of an interface that is up (loopback if
         * there is none).
         */
        public Builder advertisedHost(String host) {
            this.advertisedHost = Objects.requireNonNull(host, "advertisedHost");
            return this;
        }

        /**
         * How long {@link RpcServer#close()} waits between unregistering and draining, so that
         * consumers' watches see the provider leave before it stops answering: default 0.
         */
        public Builder unregisterDelay(Duration delay) {
            this.unregisterDelay = Checks.notNegative("unregisterDelay", delay);
            return this;
        }

        /** Address to bind: default {@code 0.0.0.0} (every interface). */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** Port to bind; 0 (the default) picks a free one, read back with {@link RpcServer#port()}. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
            }
            this.port = port;
            return this;
        }


        /** Threads that run calls: default 200. */
        public Builder executorThreads(int n) {
            this.executorThreads = Checks.atLeast("executorThreads", n, 1);
            return this;
        }

        /** Calls that may wait for a thread; 0 (the default) means none wait: busy is answered at once. */
        public Builder executorQueue(int n) {
            this.executorQueue = Checks.atLeast("executorQueue", n, 0);
            return this;
        }

        /**
         * What kind of thread runs calls ({@link CallThreads}): default {@code PLATFORM}.
         * {@code VIRTUAL} (JDK 21+) keeps the same bound of {@link #executorThreads} with virtual
         * threads; on an older JDK {@link #build()} fails naming the JDK.
         */
        public Builder callThreads(CallThreads kind) {
            this.callThreads = Objects.requireNonNull(kind, "callThreads");
            return this;
        }




        /**
         * How long {@link RpcServer#close()} waits for calls in flight and then for clients to
         * close their connections (XRpc clients close as soon as their calls there are answered;
         * a peer that does not holds the close this long): default 10 s.
         */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = Checks.notNegative("shutdownGrace", grace);
            return this;
        }


        /** Exports {@code implementation} as {@code serviceInterface} with no version or group. */
        public <T> Builder service(Class<T> serviceInterface, T implementation) {
            return service(serviceInterface, implementation, ServiceOptions.defaults());
        }

        public <T> Builder service(Class<T> serviceInterface, T implementation, ServiceOptions options) {
            exports.add(new Export<>(Objects.requireNonNull(serviceInterface, "serviceInterface"),
                    Objects.requireNonNull(implementation, "implementation"), Objects.requireNonNull(options, "options")));
            return this;
        }


        /**
         * How much of a service's exception its callers receive: {@link ErrorDetails#MESSAGE}
         * (default: class and message, the trace in this server's log under a reference the
         * caller gets) or {@link ErrorDetails#FULL} (stack traces and causes, for trusted callers).
         */
        public Builder errorDetails(ErrorDetails details) {
            this.errorDetails = Objects.requireNonNull(details, "details");
            return this;
        }

        /**
         * Checks every request's credentials before its arguments are read; a refused one is
         * answered {@code UNAUTHENTICATED}. Default: none, every call admitted. With one, a
         * connection must earn its place: see {@link #authenticationTimeout} and
         * {@link #maxAuthenticationFailures}, and at {@link #maxConnections} the oldest connection
         * that has not carried an admitted call makes room for a new one.
         */
        public Builder authenticator(Authenticator authenticator) {
            this.authenticator = authenticator;
            return this;
        }

        /**
         * With an {@link #authenticator}, a connection that has carried no admitted call this long
         * after it opened is closed with a GOAWAY saying so; heartbeats do not extend it, as
         * gRPC and HTTP servers close a connection that never sends a valid request. Default 5 s;
         * 0 turns it off.
         */
        public Builder authenticationTimeout(Duration timeout) {
            this.authenticationTimeout = Checks.notNegative("authenticationTimeout", timeout);
            return this;
        }

        /**
         * With an {@link #authenticator}, a connection whose calls are refused this many times in
         * a row is closed with a GOAWAY naming the reason. Default 3; 0 turns it off.
         */
        public Builder maxAuthenticationFailures(int n) {
            this.maxAuthenticationFailures = Checks.atLeast("maxAuthenticationFailures", n, 0);
            return this;
        }



        /** Adds an interceptor; the first added runs outermost. */
        public Builder interceptor(ServerInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Checks and freezes the settings; building twice gives two independent servers. */
        public RpcServer build() {
            NettyVersion.require();
            TransportConfig t = transportSettings();
            long requestMemory = maxRequestMemory;
            if (requestMemory == 0) {
                requestMemory = Math.max(io.xrpc.protocol.codec.MemoryBudget.defaultLimit(), t.maxFrameLength());
            } else if (requestMemory < t.maxFrameLength()) {
                throw new IllegalArgumentException("maxRequestMemory: " + requestMemory + " bytes (expected: at least"
                        + " maxFrameLength, " + t.maxFrameLength() + ", or no request that large could be read)");
            }
            ServerConfig c = new ServerConfig(host, port, advertisedHost, eventLoopThreads(), executorThreads,
                    executorQueue, callThreads, shutdownGrace, unregisterDelay, frameTimeout, maxConnections,
                    maxConnectionsPerAddress, limits(), typeCheckMode(), authenticator, errorDetails,
                    authenticationTimeout, maxAuthenticationFailures, requestMemory, interceptors, registryAddress,
                    registry, t);
            return new RpcServer(c, allowListCopy(), List.copyOf(exports));
        }
    }
}
