package io.xrpc.spring.autoconfigure;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.config.EndpointBuilder;
import io.xrpc.config.TlsConfig;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.server.CallThreads;
import io.xrpc.server.ErrorDetails;
import io.xrpc.server.RpcServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Everything {@code xrpc.*}, bound once at start-up and immutable after. A value out of range stops
 * start-up with a message naming the property and what it expected.
 *
 * <p>Every default is written here in {@code @DefaultValue}, so that the generated configuration
 * metadata shows it; XrpcPropertiesTest keeps them equal to the core's own defaults.
 *
 * @param enabled              Whether XRpc is configured at all.
 * @param maxFrameLength       Largest frame body accepted, also after decompression.
 * @param compressThreshold    Bodies smaller than this are sent uncompressed even when a compressor is chosen.
 * @param heartbeatInterval    Idle time after which a ping is sent; three without any read close the connection.
 * @param allowedClasses       Classes (binary names) that payloads may construct beyond the services' own types.
 * @param allowedPackages      Packages whose classes payloads may construct.
 * @param maxObjectsPerMessage Objects one message may build, a shared object counted once per reference to it.
 * @param maxDepth             How deeply values in one message may nest.
 * @param typeCheck            What to do when a serializer in use cannot carry a type a service interface
 *                             exchanges: FAIL stops start-up naming the method, type and serializer; WARN logs
 *                             it; OFF does not look.
 * @param writeBuffer          Output per connection, both sides: above the high mark this side holds back, below
 *                             the low mark it goes on.
 * @param registry             The registry both sides share.
 * @param server               The provider side.
 * @param client               The consumer side.
 */
@ConfigurationProperties(prefix = "xrpc")
public record XrpcProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("8MB") DataSize maxFrameLength,
        @DefaultValue("1KB") DataSize compressThreshold,
        @DefaultValue("30s") Duration heartbeatInterval,
        List<String> allowedClasses,
        List<String> allowedPackages,
        @DefaultValue("1000000") int maxObjectsPerMessage,
        @DefaultValue("128") int maxDepth,
        @DefaultValue("fail") TypeCheck.Mode typeCheck,
        @DefaultValue WriteBuffer writeBuffer,
        @DefaultValue Registry registry,
        @DefaultValue Server server,
        @DefaultValue Client client)
        implements InitializingBean {

    public XrpcProperties {
        allowedClasses = allowedClasses == null ? List.of() : List.copyOf(allowedClasses);
        allowedPackages = allowedPackages == null ? List.of() : List.copyOf(allowedPackages);
    }

    /**
     * @param lowWaterMark  Output below which a connection is written (and read) freely again.
     * @param highWaterMark Output above which the server stops reading a connection and clients hold requests back.
     */
    public record WriteBuffer(
            @DefaultValue("512KB") DataSize lowWaterMark,
            @DefaultValue("1MB") DataSize highWaterMark) {}

    /**
     * @param address        Registry address: zookeeper://host:2181[,host:2181], host:2181, or embedded for a
     *                       ZooKeeper inside the first JVM on this machine that asks, which later JVMs on the
     *                       machine connect to. Empty: no registry, references need a url.
     * @param parameters     Parameters passed to the registry as they are, for a registry of another scheme (a
     *                       ZooKeeper registry takes the typed settings beside this one; see docs/REGISTRY.md).
     * @param sessionTimeout How long a silent provider stays registered (ZooKeeper).
     * @param connectTimeout How long start-up waits for the registry (ZooKeeper).
     * @param rootPath       Root node of every XRpc path (ZooKeeper).
     * @param emptyListGrace How long a consumer keeps its last providers when the registry suddenly lists none
     *                       (ZooKeeper). Unset: 1s, and 3s with embedded, whose takeover empties the registry
     *                       until every JVM has registered again.
     * @param embeddedPort   Port of 127.0.0.1 that embedded registries meet on (embedded only). Unset: the
     *                       system property xrpc.embedded.port, else 21810.
     * @param shrinkGuard    Share of a service's providers that may vanish from the registry within the window
     *                       before a consumer keeps the ones that vanished until the registry is stable again (an
     *                       outage expiring many sessions, not a fleet stopping); departures while the consumer's
     *                       own connection is down or just back are kept too. 0 turns it off (ZooKeeper).
     * @param shrinkGuardWindow Window of the shrink guard: how long departures count together, how long after a
     *                       reconnection they are kept, and how long the registry must then be stable (ZooKeeper).
     * @param username       User the registry client authenticates as (ZooKeeper: a digest user); empty: none,
     *                       or the user:password@ of the address.
     * @param password       Password of the registry user; never logged or shown.
     * @param acl            ACL of the nodes XRpc creates (ZooKeeper): auto (creator-all and read for everyone
     *                       with a user, open without), open, or entries such as auth::cdrwa,world:anyone:r.
     * @param mode           How providers register and consumers read (ZooKeeper): instance (one node per
     *                       provider process, followed change by change), interface (one node per service, the
     *                       layout of XRpc 0.1), or all (write both, read the union; for moving a fleet over).
     * @param application    Application this process's providers register under (ZooKeeper, mode instance or
     *                       all). Empty: spring.application.name, else default.
     */
    public record Registry(
            @DefaultValue("") String address,
            Map<String, String> parameters,
            @DefaultValue("30s") Duration sessionTimeout,
            @DefaultValue("10s") Duration connectTimeout,
            @DefaultValue("/xrpc") String rootPath,
            Duration emptyListGrace,
            Integer embeddedPort,
            @DefaultValue("0.5") double shrinkGuard,
            @DefaultValue("30s") Duration shrinkGuardWindow,
            @DefaultValue("") String username,
            @DefaultValue("") String password,
            @DefaultValue("auto") String acl,
            @DefaultValue("instance") String mode,
            @DefaultValue("") String application) {

        public Registry {
            // in the order given, as RegistryConfig keeps them
            parameters = parameters == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        }

        @Override
        public String toString() {
            // A record would print the password.
            return "Registry[address=" + address + ", username=" + username + "]";
        }
    }

    /**
     * @param host                      Address to bind.
     * @param port                      Port to bind; 0 picks a free one.
     * @param advertisedHost            Host registered for consumers; default the first private address of
     *                                  the machine.
     * @param ioThreads                 Event-loop threads; 0 for the number of cores.
     * @param executorThreads           Threads that run calls.
     * @param executorQueue             Calls that may wait for a thread (until their deadline); 0 answers
     *                                  SERVER_BUSY at once when all are busy.
     * @param callThreads               What kind of thread runs calls: platform, or virtual (JDK 21+; same
     *                                  bound; on an older JDK start-up fails naming it).
     * @param unregisterDelay           On shutdown, the longest wait between unregistering and draining, so
     *                                  consumers stop routing here; it ends once they closed their connections.
     * @param shutdownGrace             On shutdown, how long calls in flight may take to finish.
     * @param frameTimeout              How long a frame may take to arrive whole once its first byte came.
     * @param maxConnections            Open connections accepted; more are refused with a GOAWAY their clients
     *                                  retry elsewhere.
     * @param maxConnectionsPerAddress  Open connections accepted from one remote address; 0 for no limit of
     *                                  its own.
     * @param authenticationTimeout     With an Authenticator bean: how long a connection may stay without
     *                                  carrying an authenticated call (pings do not count); 0 turns it off.
     * @param maxAuthenticationFailures With an Authenticator bean: calls refused in a row after which the
     *                                  connection is closed with a GOAWAY naming why; 0 turns it off.
     * @param errorDetails              What callers get of a service's exception: message (class and message;
     *                                  the provider logs the trace under a reference the caller gets) or full
     *                                  (traces and causes, for trusted callers).
     * @param reflection                Whether the server answers io.xrpc.common.ServerReflection, which lists its
     *                                  services and describes their methods and types to tools such as the xrpc
     *                                  command line (it passes the Authenticator like any call).
     * @param maxRequestMemory          Bytes the server may hold, over all connections, in requests over 16KB
     *                                  arriving or waiting to run; one that does not fit is answered
     *                                  SERVER_BUSY unread. Empty: half the JVM's maximum direct memory.
     * @param ssl                       TLS of the provider, from a Spring Boot SSL bundle (spring.ssl.bundle.*).
     * @param adaptiveConcurrency       Whether each method's calls are admitted under an adaptive concurrency
     *                                  limit that follows their latency, the excess answered SERVER_BUSY at once.
     * @param http                      JSON calls over HTTP/1.1 and HTTP/2, and gRPC, on the same port (docs/HTTP.md, docs/GRPC.md).
     */
    public record Server(
            @DefaultValue("0.0.0.0") String host,
            @DefaultValue("20880") int port,
            String advertisedHost,
            @DefaultValue("0") int ioThreads,
            @DefaultValue("200") int executorThreads,
            @DefaultValue("1024") int executorQueue,
            @DefaultValue("platform") CallThreads callThreads,
            @DefaultValue("1s") Duration unregisterDelay,
            @DefaultValue("10s") Duration shutdownGrace,
            @DefaultValue("10s") Duration frameTimeout,
            @DefaultValue("10000") int maxConnections,
            @DefaultValue("0") int maxConnectionsPerAddress,
            @DefaultValue("5s") Duration authenticationTimeout,
            @DefaultValue("3") int maxAuthenticationFailures,
            @DefaultValue("message") ErrorDetails errorDetails,
            @DefaultValue("true") boolean reflection,
            DataSize maxRequestMemory,
            @DefaultValue ServerSsl ssl,
            @DefaultValue("false") boolean adaptiveConcurrency,
            @DefaultValue Http http) {

        /** The provider's own options on {@code b}; the shared ones come from {@link #applyShared}. */
        void applyTo(RpcServer.Builder b) {
            b.host(host)
                    .port(port)
                    .executorThreads(executorThreads)
                    .executorQueue(executorQueue)
                    .callThreads(callThreads)
                    .shutdownGrace(shutdownGrace)
                    .unregisterDelay(unregisterDelay)
                    .frameTimeout(frameTimeout)
                    .maxConnections(maxConnections)
                    .maxConnectionsPerAddress(maxConnectionsPerAddress)
                    .authenticationTimeout(authenticationTimeout)
                    .maxAuthenticationFailures(maxAuthenticationFailures)
                    .errorDetails(errorDetails)
                    .reflection(reflection)
                    .adaptiveConcurrency(adaptiveConcurrency)
                    .http(http.enabled())
                    .httpConsole(http.console())
                    .httpAllowedOrigins(http.allowedOrigins() == null ? List.of() : http.allowedOrigins());
            if (maxRequestMemory != null) {
                b.maxRequestMemory(maxRequestMemory.toBytes());
            }
            if (ioThreads > 0) {
                b.ioThreads(ioThreads);
            }
            if (advertisedHost != null && !advertisedHost.isBlank()) {
                b.advertisedHost(advertisedHost);
            }
        }
    }

    /**
     * @param enabled        Whether the port also answers JSON calls over HTTP/1.1 and HTTP/2 (curl, browsers,
     *                       Connect clients) and gRPC (any gRPC client; docs/GRPC.md), through the same
     *                       authenticator, interceptors and limits as
     *                       binary calls; false for a port that speaks XRpc alone.
     * @param allowedOrigins Browser origins allowed to call from another origin (CORS); empty refuses every
     *                       cross-origin call, "*" allows all.
     * @param console        Whether GET /xrpc/console serves a page that lists the services and calls them
     *                       from a form (every call it makes passes the Authenticator).
     */
    public record Http(
            @DefaultValue("true") boolean enabled,
            List<String> allowedOrigins,
            @DefaultValue("false") boolean console) {}

    /**
     * @param bundle     Name of the SSL bundle whose key store the server serves; empty: plaintext.
     * @param clientAuth Whether clients must present a certificate the bundle's trust store accepts: none,
     *                   optional or require (mutual TLS).
     */
    public record ServerSsl(
            @DefaultValue("") String bundle,
            @DefaultValue("none") TlsConfig.ClientAuth clientAuth) {}

    /**
     * @param bundle         Name of the SSL bundle whose trust store the client checks providers against, and
     *                       whose key store (if any) it presents for mutual TLS; empty: plaintext.
     * @param verifyHostname Whether a provider's certificate must name the host connected to.
     */
    public record ClientSsl(
            @DefaultValue("") String bundle,
            @DefaultValue("true") boolean verifyHostname) {}

    /**
     * @param serializer                Default serializer: kryo, hessian, protostuff, fory or json.
     * @param compressor                Default compressor: none or gzip.
     * @param timeout                   Default deadline of a call, across all its attempts (retries and hedges).
     * @param retries                   Further attempts of the failover cluster.
     * @param loadBalancer              Default load balancer: p2c (latency-aware), random, round-robin,
     *                                  least-active or consistent-hash.
     * @param cluster                   Default cluster strategy: failover, failfast or failsafe.
     * @param connectionsPerEndpoint    Multiplexed connections per provider.
     * @param maxPendingCalls           Calls that may be pending at once; more fail at once with
     *                                  RESOURCE_EXHAUSTED.
     * @param maxPendingRequestBytes    Bytes of requests that may wait to be written to one provider; beyond,
     *                                  calls to it fail at once.
     * @param credentialsOverPlaintext  Whether a CallCredentials bean's credentials are sent without TLS too,
     *                                  readable by anyone on the path: for development on loopback only. False:
     *                                  without an SSL bundle every call that would carry them fails
     *                                  UNAUTHENTICATED unsent.
     * @param ssl                       TLS of the consumer, from a Spring Boot SSL bundle (spring.ssl.bundle.*).
     * @param outlierDetection          Setting aside a provider whose calls keep going unanswered.
     * @param retryBudget               Throttling of retries and hedges per reference.
     * @param hedging                   Hedging of every @Idempotent method: a delay such as 50ms, a
     *                                  percentile of recent latency such as p95, or empty for none.
     * @param cancelOnProvider          Whether a hedged attempt that lost is cancelled on its provider too (a
     *                                  CANCEL frame); false for providers older than CANCEL, which close the
     *                                  connection on it.
     * @param pingTimeout               How long a provider silent while calls wait on it has to answer a ping
     *                                  before it is set aside and those calls fail at once; 0 turns it off.
     * @param attemptTimeout            The longest one attempt of a call may take, so that a failover retry
     *                                  has time left within the call's timeout; unset (the default): an
     *                                  attempt may take what is left of the call's deadline.
     * @param subsetting                Which of a large service's providers each consumer calls (an
     *                                  aperture, on by default over lists of more than 64).
     */
    public record Client(
            @DefaultValue("kryo") String serializer,
            @DefaultValue("none") String compressor,
            @DefaultValue("3s") Duration timeout,
            @DefaultValue("2") int retries,
            @DefaultValue("p2c") String loadBalancer,
            @DefaultValue("failover") String cluster,
            @DefaultValue("1") int connectionsPerEndpoint,
            @DefaultValue("65536") int maxPendingCalls,
            @DefaultValue("64MB") DataSize maxPendingRequestBytes,
            @DefaultValue("false") boolean credentialsOverPlaintext,
            @DefaultValue ClientSsl ssl,
            @DefaultValue OutlierDetection outlierDetection,
            @DefaultValue RetryBudget retryBudget,
            @DefaultValue("") String hedging,
            @DefaultValue("true") boolean cancelOnProvider,
            @DefaultValue("100ms") Duration pingTimeout,
            Duration attemptTimeout,
            @DefaultValue Subset subsetting) {

        /** The consumer's own options on {@code b}; the shared ones come from {@link #applyShared}. */
        void applyTo(RpcClient.Builder b) {
            b.serializer(serializer)
                    .compressor(compressor)
                    .timeout(timeout)
                    .connectionsPerEndpoint(connectionsPerEndpoint)
                    .maxPendingCalls(maxPendingCalls)
                    .maxPendingRequestBytes(maxPendingRequestBytes.toBytes())
                    .outlierDetection(
                            outlierDetection.consecutiveFailures(),
                            outlierDetection.baseEjection(),
                            outlierDetection.maxEjection())
                    .credentialsOverPlaintext(credentialsOverPlaintext)
                    .cancelOnProvider(cancelOnProvider)
                    .pingTimeout(pingTimeout);
        }
    }

    /**
     * @param enabled      Whether references subset large provider lists: each consumer calls an even
     *                     slice of them (docs/REGISTRY.md, Subsetting).
     * @param minProviders The fewest providers a consumer's slice covers.
     * @param threshold    Lists of at most this many providers are used whole.
     * @param peerIndex    This consumer's place among its application's consumers (a StatefulSet
     *                     ordinal, say), with peer-count; -1 (the default): the registry places it.
     * @param peerCount    How many consumers the application has, with peer-index.
     */
    public record Subset(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("16") int minProviders,
            @DefaultValue("64") int threshold,
            @DefaultValue("-1") int peerIndex,
            @DefaultValue("0") int peerCount) {

        /** As the reference option; a peer index without a count (or out of it) fails naming both. */
        io.xrpc.config.Subsetting toSubsetting() {
            if (!enabled) {
                return io.xrpc.config.Subsetting.off();
            }
            io.xrpc.config.Subsetting s = io.xrpc.config.Subsetting.aperture(minProviders, threshold);
            if (peerIndex < 0) {
                if (peerCount > 0) {
                    throw new IllegalArgumentException("xrpc.client.subsetting.peer-count " + peerCount
                            + " needs xrpc.client.subsetting.peer-index (this consumer's place, 0 to "
                            + (peerCount - 1) + ")");
                }
                return s;
            }
            if (peerIndex >= peerCount) {
                throw new IllegalArgumentException("xrpc.client.subsetting.peer-index " + peerIndex
                        + " needs xrpc.client.subsetting.peer-count above it (is " + peerCount + ")");
            }
            return s.position(peerIndex, peerCount);
        }
    }

    /**
     * @param maxTokens  Tokens in each reference's bucket; every retry and hedge spends one and they
     *                   stop at half the bucket. 0 turns throttling off.
     * @param tokenRatio What each answered attempt puts back.
     */
    public record RetryBudget(
            @DefaultValue("100") int maxTokens,
            @DefaultValue("0.1") double tokenRatio) {}

    /**
     * @param consecutiveFailures Calls in a row that went unanswered (or lost their connection) before a
     *                            provider is set aside; 0 turns it off.
     * @param baseEjection        How long a provider is first set aside; doubled for every ejection in a row.
     * @param maxEjection         The longest a provider is set aside.
     */
    public record OutlierDetection(
            @DefaultValue("3") int consecutiveFailures,
            @DefaultValue("5s") Duration baseEjection,
            @DefaultValue("60s") Duration maxEjection) {}

    /**
     * The options client and server share, on either builder: both sides of XRpc read with the same
     * limits and allow-list. {@code allowedClasses} are names, added to the built endpoint's allow-list.
     */
    <B extends EndpointBuilder<B>> B applyShared(B b) {
        b.maxFrameLength((int) maxFrameLength.toBytes())
                .compressThreshold((int) compressThreshold.toBytes())
                .heartbeatInterval(heartbeatInterval)
                .readLimits(readLimits())
                .typeCheck(typeCheck)
                .writeBufferWaterMark((int) writeBuffer.lowWaterMark().toBytes(), (int)
                        writeBuffer.highWaterMark().toBytes());
        allowedPackages.forEach(b::allowPackage);
        return b;
    }

    /** The read limits both sides apply. */
    ReadLimits readLimits() {
        return ReadLimits.of(maxObjectsPerMessage, maxDepth);
    }

    @Override
    public void afterPropertiesSet() {
        PropertiesCheck.check(this);
    }

    /** Parses {@code url} of a reference: comma-separated {@code host:port}. */
    static List<Endpoint> parseUrl(String url) {
        List<Endpoint> list = new ArrayList<>();
        for (String part : url.split(",")) {
            if (!part.isBlank()) {
                list.add(Endpoint.parse(part.trim()));
            }
        }
        return list;
    }
}
