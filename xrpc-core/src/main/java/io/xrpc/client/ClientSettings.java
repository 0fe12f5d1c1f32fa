package io.xrpc.client;

import io.xrpc.config.EndpointBuilder;
import io.xrpc.internal.Checks;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a client is set up with: the defaults of its references, how it finds providers, its
 * connections and their limits, outlier detection, credentials and interceptors. Each has a default.
 * {@link RpcClient.Builder} is the one to use; this base keeps the options in one place so that
 * {@link ClientConfig} is built from them, not from a list of arguments. The options a server
 * shares are in {@link EndpointBuilder}. Not thread-safe.
 *
 * @param <B> the builder itself, so that setters chain
 */
abstract class ClientSettings<B extends ClientSettings<B>> extends EndpointBuilder<B> {
    CallCredentials credentials;
    boolean credentialsOverPlaintext;
    String serializer = "kryo";
    String compressor = "none";
    Duration timeout = Duration.ofSeconds(3);
    int connectionsPerEndpoint = 1;
    Duration connectTimeout = Duration.ofSeconds(3);
    int maxPendingCalls = 65_536;
    Duration reconnectBackoff = Duration.ofMillis(100);
    Duration maxReconnectBackoff = Duration.ofSeconds(10);
    long maxPendingRequestBytes = RpcClient.DEFAULT_MAX_PENDING_REQUEST_BYTES;
    int outlierFailures = RpcClient.DEFAULT_OUTLIER_FAILURES;
    Duration outlierBaseEjection = RpcClient.DEFAULT_OUTLIER_BASE_EJECTION;
    Duration outlierMaxEjection = RpcClient.DEFAULT_OUTLIER_MAX_EJECTION;
    boolean cancelOnProvider = true;
    Duration pingTimeout = RpcClient.DEFAULT_PING_TIMEOUT;
    final List<ClientInterceptor> interceptors = new ArrayList<>();
    /** Parsed when given, so a bad address fails there; printed with its password masked. */
    RegistryConfig registryAddress;

    ServiceDiscovery discovery;

    ClientSettings() {
        super(false, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /** The settings as set, checked and frozen. */
    final ClientConfig config() {
        return new ClientConfig(this, limits(), typeCheckMode(), eventLoopThreads(), transportSettings());
    }

    /**
     * Whether an attempt this client cancels after sending it (a hedged attempt that lost) is
     * cancelled on its provider too, with a CANCEL frame: a request still waiting there is then
     * not run, and a running one's answer is not sent. Default true. Providers of an XRpc before
     * CANCEL close the connection on it: a consumer that calls such providers turns this off (or
     * they are upgraded first).
     */
    public B cancelOnProvider(boolean cancel) {
        this.cancelOnProvider = cancel;
        return self();
    }

    /**
     * Bytes of encoded requests that may wait to be written to one provider (the byte-sized
     * sibling of {@link #maxPendingCalls}); beyond it calls to that provider fail at once with
     * RESOURCE_EXHAUSTED, not sent, and calls to the others go on. Requests wait while a
     * provider reads slower than they are made. Default 64 MiB.
     */
    public B maxPendingRequestBytes(long bytes) {
        this.maxPendingRequestBytes = Checks.atLeast("maxPendingRequestBytes", bytes, 1024L);
        return self();
    }

    /**
     * Outlier detection: after {@code consecutiveFailures} calls in a row to one provider went
     * unanswered before their deadline or lost their connection, the provider is set aside for
     * {@code baseEjection}, doubled for every ejection in a row up to {@code maxEjection}, then
     * tried again; the last provider left is never set aside. 0 failures turns it off.
     * Default 3, 5 s, 60 s.
     */
    public B outlierDetection(int consecutiveFailures, Duration baseEjection, Duration maxEjection) {
        this.outlierFailures = Checks.atLeast("outlierFailures", consecutiveFailures, 0);
        this.outlierBaseEjection = Checks.checkPositive("outlierBaseEjection", baseEjection);
        this.outlierMaxEjection = Checks.atLeast(
                "outlierMaxEjection",
                Checks.checkPositive("outlierMaxEjection", maxEjection),
                "outlierBaseEjection",
                baseEjection);
        return self();
    }

    /**
     * How long a silent provider has to answer a ping. When calls wait on a provider that has sent
     * nothing for four times its usual answer time (at least 50 ms), the client pings it; if it
     * answers nothing within this (or four times its usual answer time, when longer), not even the
     * ping, it is set aside as outlier detection does and its calls fail at once: CONNECTION_CLOSED
     * for those sent (they may have run), UNAVAILABLE for those not sent, so a frozen provider (a
     * long GC pause, SIGSTOP, a hung host) holds its callers for about {@code timeout} + 100 ms
     * rather than their whole deadline. A live provider answers a ping from its event loop at once,
     * however long its calls take. Until a provider has answered 32 calls (a fresh JVM's first
     * calls are slow) it is given a second for each, and it is always given the time the requests
     * waiting on it take to arrive at 1 MB/s (a large request on a slow link holds the ping back). Default 100 ms; {@link Duration#ZERO} turns it
     * off, as does turning outlier detection off.
     */
    public B pingTimeout(Duration timeout) {
        this.pingTimeout = Checks.notNegative("pingTimeout", timeout);
        return self();
    }

    /**
     * Finds providers in the registry at {@code address} ({@code zookeeper://host:2181,...},
     * {@code host:2181} or {@code embedded}); the client connects at build time and closes it
     * with itself. References with direct addresses ignore it.
     */
    public B registry(String address) {
        this.registryAddress = RegistryConfig.builder(Objects.requireNonNull(address, "address"))
                .build();
        this.discovery = null;
        return self();
    }

    /** Finds providers through {@code discovery}, which the caller keeps and closes. */
    public B registry(ServiceDiscovery discovery) {
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.registryAddress = null;
        return self();
    }

    /** Default serializer of references that do not name one: {@code kryo}. */
    public B serializer(String name) {
        this.serializer = Objects.requireNonNull(name, "serializer");
        return self();
    }

    /** Default compressor of references that do not name one: {@code none}. */
    public B compressor(String name) {
        this.compressor = Objects.requireNonNull(name, "compressor");
        return self();
    }

    /** Default deadline of a call: 3 s. */
    public B timeout(Duration timeout) {
        this.timeout = Checks.checkPositive("timeout", timeout);
        return self();
    }

    /** Multiplexed connections per provider address: default 1. */
    public B connectionsPerEndpoint(int n) {
        this.connectionsPerEndpoint = Checks.atLeast("connectionsPerEndpoint", n, 1);
        return self();
    }

    /** How long connecting to a provider may take: default 3 s. */
    public B connectTimeout(Duration timeout) {
        this.connectTimeout = Checks.checkPositive("connectTimeout", timeout);
        return self();
    }

    /** Calls that may be pending at once; beyond it calls fail at once with RESOURCE_EXHAUSTED. Default 65536. */
    public B maxPendingCalls(int n) {
        this.maxPendingCalls = Checks.atLeast("maxPendingCalls", n, 1);
        return self();
    }

    /** First wait after a failed connect, doubled per failure up to {@code max}: default 100 ms to 10 s. */
    public B reconnectBackoff(Duration initial, Duration max) {
        this.reconnectBackoff = Checks.checkPositive("reconnectBackoff", initial);
        this.maxReconnectBackoff = Checks.atLeast(
                "maxReconnectBackoff", Checks.checkPositive("maxReconnectBackoff", max), "reconnectBackoff", initial);
        return self();
    }

    /**
     * Credentials sent with every call, such as a bearer token; default none. They are sent
     * only over TLS: without {@link #tls} every call fails {@code UNAUTHENTICATED} before
     * anything is written, unless {@link #credentialsOverPlaintext(boolean)} allows it.
     */
    public B credentials(CallCredentials credentials) {
        this.credentials = credentials;
        return self();
    }

    /**
     * {@code true} sends the {@link #credentials} over plaintext connections too, where anyone
     * on the path can read and replay them: for development on loopback only. Default
     * {@code false}.
     */
    public B credentialsOverPlaintext(boolean allow) {
        this.credentialsOverPlaintext = allow;
        return self();
    }

    /** Adds an interceptor; the first added runs outermost. */
    public B interceptor(ClientInterceptor interceptor) {
        interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }
}
