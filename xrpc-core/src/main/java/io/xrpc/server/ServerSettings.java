package io.xrpc.server;

import io.xrpc.config.EndpointBuilder;
import io.xrpc.internal.Checks;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * What a server is set up with besides its services: where it listens and what it registers, the
 * threads that run calls, how many connections it keeps, who may call, and how it shuts down. Each
 * has a default. {@link RpcServer.Builder} is the one to use; this base keeps the options in one
 * place so that {@link ServerConfig} is built from them, not from a list of arguments. The options a
 * client shares are in {@link EndpointBuilder}. Not thread-safe.
 *
 * @param <B> the builder itself, so that setters chain
 */
abstract class ServerSettings<B extends ServerSettings<B>> extends EndpointBuilder<B> {
    String host = "0.0.0.0";
    int port;
    String advertisedHost;
    int executorThreads = 200;
    int executorQueue = RpcServer.DEFAULT_EXECUTOR_QUEUE;
    boolean adaptiveConcurrency;
    CallThreads callThreads = CallThreads.PLATFORM;
    Executor executor;
    Duration shutdownGrace = Duration.ofSeconds(10);
    Duration unregisterDelay = Duration.ZERO;
    Duration frameTimeout = RpcServer.DEFAULT_FRAME_TIMEOUT;
    int maxConnections = RpcServer.DEFAULT_MAX_CONNECTIONS;
    int maxConnectionsPerAddress;
    Authenticator authenticator;
    ErrorDetails errorDetails = ErrorDetails.MESSAGE;
    boolean reflection = true;
    Duration authenticationTimeout = RpcServer.DEFAULT_AUTHENTICATION_TIMEOUT;
    int maxAuthenticationFailures = RpcServer.DEFAULT_MAX_AUTHENTICATION_FAILURES;
    /** 0 until set: then half the max direct memory, and at least the frame limit. */
    long maxRequestMemory;

    boolean http = true;
    boolean httpConsole;
    List<String> httpAllowedOrigins = List.of();

    final List<ServerInterceptor> interceptors = new ArrayList<>();
    /** Parsed when given, so a bad address fails there; printed with its password masked. */
    RegistryConfig registryAddress;

    ServiceRegistry registry;

    ServerSettings() {
        super(true, Runtime.getRuntime().availableProcessors());
    }

    /** The settings as set, checked and frozen. */
    final ServerConfig config() {
        return new ServerConfig(this, limits(), typeCheckMode(), eventLoopThreads(), transportSettings());
    }

    /**
     * How long a frame may take to arrive whole once its first byte came; a peer slower than
     * that (one trickling a byte a second to hold the connection and its buffer) is
     * disconnected. Default 10 s.
     */
    public B frameTimeout(Duration timeout) {
        this.frameTimeout = Checks.checkPositive("frameTimeout", timeout);
        return self();
    }

    /**
     * Open connections this server accepts: default 10,000. One more is refused with a GOAWAY
     * saying why (its client sends its calls elsewhere) and one log line.
     */
    public B maxConnections(int n) {
        this.maxConnections = Checks.atLeast("maxConnections", n, 1);
        return self();
    }

    /**
     * Bytes the server may hold, over all connections, in requests over 16 KiB that are
     * arriving or were read and not yet run. A request that does not fit is answered
     * {@code SERVER_BUSY} (safe to retry elsewhere) and its bytes are skipped unread, so that
     * many connections each holding an almost complete 8 MiB frame cannot exhaust direct
     * memory. At least {@code maxFrameLength}, or no large request could ever be read.
     * Default: half the JVM's maximum direct memory, and at least {@code maxFrameLength}.
     */
    public B maxRequestMemory(long bytes) {
        this.maxRequestMemory = Checks.atLeast("maxRequestMemory", bytes, 16 * 1024L);
        return self();
    }

    /**
     * Whether the server's port also answers HTTP/1.1 and HTTP/2 (with prior knowledge in plaintext,
     * through ALPN inside TLS) with JSON calls, told apart from XRpc's own protocol by a connection's first
     * bytes: {@code POST /{service}/{method}} with a JSON body, as Connect's unary protocol has it
     * (docs/HTTP.md), and gRPC ({@code application/grpc}: protobuf laid out as the contract derived from
     * the interface, docs/GRPC.md). Every such call goes through the same path as a binary one:
     * authenticator, interceptors, allow-list, limits, memory budget. Default on; off for a provider that must
     * speak XRpc alone (an HTTP peer is then closed as any peer with a wrong magic is).
     */
    public B http(boolean enabled) {
        this.http = enabled;
        return self();
    }

    /**
     * Whether {@code GET /xrpc/console} on the server's port serves the console: one self-contained
     * page that lists the services (from reflection), builds a JSON form for a method, calls it over
     * HTTP and shows the answer, the time, and the same call as a {@code curl} and an {@code xrpc
     * call} line. Everything it shows comes from calls that pass the authenticator (it has a field
     * for the {@code authorization} header). Default off.
     */
    public B httpConsole(boolean enabled) {
        this.httpConsole = enabled;
        return self();
    }

    /**
     * Browser origins ({@code https://app.example.com}) allowed to call over HTTP from another
     * origin (CORS); a request carrying any other {@code Origin} is refused with 403, naming it.
     * Default none: no cross-origin call is allowed. {@code "*"} allows every origin.
     */
    public B httpAllowedOrigins(List<String> origins) {
        for (String o : origins) {
            Objects.requireNonNull(o, "origin");
        }
        this.httpAllowedOrigins = List.copyOf(origins);
        return self();
    }

    /** Open connections from one remote address: default 0, no limit of its own. */
    public B maxConnectionsPerAddress(int n) {
        this.maxConnectionsPerAddress = Checks.atLeast("maxConnectionsPerAddress", n, 0);
        return self();
    }

    /**
     * Registers every exported service in the registry at {@code address}
     * ({@code zookeeper://host:2181,...}, {@code host:2181} or {@code embedded}) once the server
     * listens; the server opens the registry at build time and closes it with itself.
     */
    public B registry(String address) {
        this.registryAddress = RegistryConfig.builder(Objects.requireNonNull(address, "address"))
                .build();
        this.registry = null;
        return self();
    }

    /** Registers through {@code registry}, which the caller keeps and closes. */
    public B registry(ServiceRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.registryAddress = null;
        return self();
    }

    /**
     * The host consumers are told to connect to. Default: the bound host, or when bound to
     * every interface, the first private IPv4 address of an interface that is up (loopback if
     * there is none).
     */
    public B advertisedHost(String host) {
        this.advertisedHost = Objects.requireNonNull(host, "advertisedHost");
        return self();
    }

    /**
     * The longest {@link RpcServer#close()} (and {@link RpcServer#unexport}) waits between
     * unregistering and draining, so that consumers see the provider leave before it stops
     * answering: default 0. The wait ends sooner once every connection has closed, which XRpc
     * consumers do as their lists drop this server; a consumer with a fixed address, or one still
     * listing another service here, keeps its connection and so holds the wait this long.
     */
    public B unregisterDelay(Duration delay) {
        this.unregisterDelay = Checks.notNegative("unregisterDelay", delay);
        return self();
    }

    /** Address to bind: default {@code 0.0.0.0} (every interface). */
    public B host(String host) {
        this.host = Objects.requireNonNull(host, "host");
        return self();
    }

    /** Port to bind; 0 (the default) picks a free one, read back with {@link RpcServer#port()}. */
    public B port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
        }
        this.port = port;
        return self();
    }

    /**
     * Threads that may run calls at once: default 200. As many as cores are kept awake while calls
     * come, each taking the next call as it finishes one, so that handing a call over wakes no
     * thread under load; others are woken as calls block or wait (docs/BENCHMARKS.md, issue 40).
     */
    public B executorThreads(int n) {
        this.executorThreads = Checks.atLeast("executorThreads", n, 1);
        return self();
    }

    /**
     * Calls that may wait for a thread: default 1,024. A waiting call whose deadline passes is
     * answered DEADLINE_EXCEEDED without running; once the threads and the queue are full, a call
     * is answered SERVER_BUSY at once. 0 makes none wait: then a call that arrives while every
     * thread is busy, even one about to finish, is refused (at 256 callers against 200 threads, 37
     * of 233,050 calls were, on an idle machine).
     */
    public B executorQueue(int n) {
        this.executorQueue = Checks.atLeast("executorQueue", n, 0);
        return self();
    }

    /**
     * Gives each exported method an adaptive concurrency limit (off by default): how many of its
     * calls run at once follows their latency, so that when more is offered than the method can
     * serve (a database pool, the cores) the calls admitted keep near their unloaded latency and
     * the excess is answered {@code SERVER_BUSY} at once, before it is read, which clients' failover
     * retries on another provider. A gradient limit as Netflix's concurrency-limits has: starts at
     * 20, grows while the recent latency stays within 1.1 times the method's unloaded latency (the
     * mean of its calls that ran alone), shrinks in proportion when above, between 2 and executorThreads +
     * executorQueue. {@code NonBlocking} methods run on the event loop are not limited.
     */
    public B adaptiveConcurrency(boolean adaptive) {
        this.adaptiveConcurrency = adaptive;
        return self();
    }

    /**
     * What kind of thread runs calls ({@link CallThreads}): default {@code PLATFORM}.
     * {@code VIRTUAL} (JDK 21+) keeps the same bound of {@link #executorThreads} with virtual
     * threads; on an older JDK {@link RpcServer.Builder#build()} fails naming the JDK.
     */
    public B callThreads(CallThreads kind) {
        this.callThreads = Objects.requireNonNull(kind, "callThreads");
        return self();
    }

    /**
     * Runs calls on {@code executor} instead of the server's own call threads, as gRPC's
     * {@code ServerBuilder.executor} does: for a pool the application already sizes and watches, or
     * one that carries its context to each call. The server neither shuts it down nor bounds it:
     * {@link #executorThreads} and {@link #executorQueue} then only size the adaptive limit and the
     * busy message; when it throws {@link java.util.concurrent.RejectedExecutionException} the call is
     * answered {@code SERVER_BUSY}; calls it still holds when the server closes run against closed
     * connections and their answers are dropped. Default: none, the server's own pool, which wakes a
     * thread only when no awake one will take the call (docs/BENCHMARKS.md measures both).
     */
    public B executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return self();
    }

    /**
     * How long {@link RpcServer#close()} waits for calls in flight and then for clients to
     * close their connections (XRpc clients close as soon as their calls there are answered;
     * a peer that does not holds the close this long): default 10 s.
     */
    public B shutdownGrace(Duration grace) {
        this.shutdownGrace = Checks.notNegative("shutdownGrace", grace);
        return self();
    }

    /**
     * Whether the server answers {@link io.xrpc.common.ServerReflection}, which lists its services
     * and describes their methods and types to tools (the {@code xrpc} command line) that call
     * them without their jar. Its calls pass the authenticator like any other. Default on, as
     * Dubbo's metadata service is; turn it off where even the shape of the API is not to be shown.
     */
    public B reflection(boolean enabled) {
        this.reflection = enabled;
        return self();
    }

    /**
     * How much of a service's exception its callers receive: {@link ErrorDetails#MESSAGE}
     * (default: class and message, the trace in this server's log under a reference the
     * caller gets) or {@link ErrorDetails#FULL} (stack traces and causes, for trusted callers).
     */
    public B errorDetails(ErrorDetails details) {
        this.errorDetails = Objects.requireNonNull(details, "details");
        return self();
    }

    /**
     * Checks every request's credentials before its arguments are read; a refused one is
     * answered {@code UNAUTHENTICATED}. Default: none, every call admitted. With one, a
     * connection must earn its place: see {@link #authenticationTimeout} and
     * {@link #maxAuthenticationFailures}, and at {@link #maxConnections} the oldest connection
     * that has not carried an admitted call makes room for a new one.
     */
    public B authenticator(Authenticator authenticator) {
        this.authenticator = authenticator;
        return self();
    }

    /**
     * With an {@link #authenticator}, a connection that has carried no admitted call this long
     * after it opened is closed with a GOAWAY saying so; heartbeats do not extend it, as
     * gRPC and HTTP servers close a connection that never sends a valid request. Default 5 s;
     * 0 turns it off.
     */
    public B authenticationTimeout(Duration timeout) {
        this.authenticationTimeout = Checks.notNegative("authenticationTimeout", timeout);
        return self();
    }

    /**
     * With an {@link #authenticator}, a connection whose calls are refused this many times in
     * a row is closed with a GOAWAY naming the reason. Default 3; 0 turns it off.
     */
    public B maxAuthenticationFailures(int n) {
        this.maxAuthenticationFailures = Checks.atLeast("maxAuthenticationFailures", n, 0);
        return self();
    }

    /** Adds an interceptor; the first added runs outermost. */
    public B interceptor(ServerInterceptor interceptor) {
        interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }
}
