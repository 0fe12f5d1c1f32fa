package io.xrpc.spring.autoconfigure;

import io.xrpc.common.Endpoint;
import io.xrpc.client.Extensions;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.server.CallThreads;
import io.xrpc.config.TlsConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Everything {@code xrpc.*}. A value out of range stops start-up with a message naming the
 * property and what it expected.
 */
@ConfigurationProperties(prefix = "xrpc")
public class XrpcProperties implements InitializingBean {
    // Defaults are written out rather than taken from the core's constants so that the generated
    // configuration metadata shows them; XrpcPropertiesTest keeps the two equal.


    /** Whether XRpc is configured at all. */
    private boolean enabled = true;

    /** Largest frame body accepted, also after decompression. */
    private DataSize maxFrameLength = DataSize.ofMegabytes(8);

    /** Bodies smaller than this are sent uncompressed even when a compressor is chosen. */
    private DataSize compressThreshold = DataSize.ofKilobytes(1);

    /** Idle time after which a ping is sent; three without any read close the connection. */
    private Duration heartbeatInterval = Duration.ofSeconds(30);

    /** Classes (binary names) that payloads may construct beyond the services' own types. */
    private List<String> allowedClasses = new ArrayList<>();

    /** Packages whose classes payloads may construct. */
    private List<String> allowedPackages = new ArrayList<>();

    /** Objects one message may build, a shared object counted once per reference to it. */
    private int maxObjectsPerMessage = 1_000_000;

    /** How deeply values in one message may nest. */
    private int maxDepth = 128;

    /**
     * What to do when a serializer in use cannot carry a type a service interface exchanges: FAIL
     * stops start-up naming the method, type and serializer; WARN logs it; OFF does not look.
     */
    private TypeCheck.Mode typeCheck = TypeCheck.Mode.FAIL;

    private final WriteBuffer writeBuffer = new WriteBuffer();

    /** Output per connection, both sides: above the high mark this side holds back, below the low mark it goes on. */
    public static class WriteBuffer {
        /** Output below which a connection is written (and read) freely again. */
        private DataSize lowWaterMark = DataSize.ofKilobytes(512);

        /** Output above which the server stops reading a connection and clients hold requests back. */
        private DataSize highWaterMark = DataSize.ofMegabytes(1);

        public DataSize getLowWaterMark() {
            return lowWaterMark;
        }

        public void setLowWaterMark(DataSize lowWaterMark) {
            this.lowWaterMark = lowWaterMark;
        }

        public DataSize getHighWaterMark() {
            return highWaterMark;
        }

        public void setHighWaterMark(DataSize highWaterMark) {
            this.highWaterMark = highWaterMark;
        }
    }

    private final Registry registry = new Registry();
    private final Server server = new Server();
    private final Client client = new Client();

    public static class Registry {
        /**
         * Registry address: zookeeper://host:2181[,host:2181], host:2181, or embedded for a
         * ZooKeeper inside the first JVM on this machine that asks, which later JVMs on the
         * machine connect to. Empty: no registry, references need a url.
         */
        private String address = "";

        /**
         * Parameters passed to the registry as they are, for a registry of another scheme (a
         * ZooKeeper registry takes the four settings below; see docs/REGISTRY.md).
         */
        private java.util.Map<String, String> parameters = new java.util.LinkedHashMap<>();

        /** How long a silent provider stays registered (ZooKeeper). */
        private Duration sessionTimeout = Duration.ofSeconds(30);

        /** How long start-up waits for the registry (ZooKeeper). */
        private Duration connectTimeout = Duration.ofSeconds(10);

        /** Root node of every XRpc path (ZooKeeper). */
        private String rootPath = "/xrpc";

        /**
         * How long a consumer keeps its last providers when the registry suddenly lists none
         * (ZooKeeper). Unset: 1s, and 3s with embedded, whose takeover empties the registry until
         * every JVM has registered again.
         */
        private Duration emptyListGrace;

        /**
         * Port of 127.0.0.1 that embedded registries meet on (embedded only). Unset: the system
         * property xrpc.embedded.port, else 21810.
         */
        private Integer embeddedPort;

        public Integer getEmbeddedPort() {
            return embeddedPort;
        }

        public void setEmbeddedPort(Integer embeddedPort) {
            this.embeddedPort = embeddedPort;
        }

        public Duration getEmptyListGrace() {
            return emptyListGrace;
        }

        public void setEmptyListGrace(Duration emptyListGrace) {
            this.emptyListGrace = emptyListGrace;
        }

        public String getAddress() {
            return address;
        }

        public void setAddress(String address) {
            this.address = address;
        }

        public java.util.Map<String, String> getParameters() {
            return parameters;
        }

        public void setParameters(java.util.Map<String, String> parameters) {
            this.parameters = parameters;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public String getRootPath() {
            return rootPath;
        }

        public void setRootPath(String rootPath) {
            this.rootPath = rootPath;
        }

        /**
         * User the registry client authenticates as (ZooKeeper: a digest user); empty: none, or
         * the user:password@ of the address.
         */
        private String username = "";

        /** Password of the registry user; never logged or shown. */
        private String password = "";

        /**
         * ACL of the nodes XRpc creates (ZooKeeper): auto (creator-all and read for everyone with a
         * user, open without), open, or entries such as auth::cdrwa,world:anyone:r.
         */
        private String acl = "auto";

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public String getAcl() {
            return acl;
        }

        public void setAcl(String acl) {
            this.acl = acl;
        }
    }

    public static class Server {
        /** Address to bind. */
        private String host = "0.0.0.0";

        private final ServerSsl ssl = new ServerSsl();

        public ServerSsl getSsl() {
            return ssl;
        }

        /** Port to bind; 0 picks a free one. */
        private int port = 20880;

        /** Host registered for consumers; default the first private address of the machine. */
        private String advertisedHost;

        /** Event-loop threads; 0 for the number of cores. */
        private int ioThreads = 0;

        /** Threads that run calls. */
        private int executorThreads = 200;

        /** Calls that may wait for a thread; 0 answers SERVER_BUSY at once when all are busy. */
        private int executorQueue = 0;

        /**
         * What kind of thread runs calls: platform, or virtual (JDK 21+; same bound; on an older JDK
         * start-up fails naming it).
         */
        private CallThreads callThreads = CallThreads.PLATFORM;

        /** On shutdown, time between unregistering and draining, so consumers stop routing here. */
        private Duration unregisterDelay = Duration.ofSeconds(1);

        /** On shutdown, how long calls in flight may take to finish. */
        private Duration shutdownGrace = Duration.ofSeconds(10);

        /** How long a frame may take to arrive whole once its first byte came. */
        private Duration frameTimeout = Duration.ofSeconds(10);

        /** Open connections accepted; more are refused with a GOAWAY their clients retry elsewhere. */
        private int maxConnections = 10_000;

        /** Open connections accepted from one remote address; 0 for no limit of its own. */
        private int maxConnectionsPerAddress = 0;

        /**
         * With an Authenticator bean: how long a connection may stay without carrying an
         * authenticated call (pings do not count); 0 turns it off.
         */
        private Duration authenticationTimeout = Duration.ofSeconds(5);

        /**
         * With an Authenticator bean: calls refused in a row after which the connection is closed
         * with a GOAWAY naming why; 0 turns it off.
         */
        private int maxAuthenticationFailures = 3;

        /**
         * What callers get of a service's exception: message (class and message; the provider
         * logs the trace under a reference the caller gets) or full (traces and causes, for
         * trusted callers).
         */
        private io.xrpc.server.ErrorDetails errorDetails = io.xrpc.server.ErrorDetails.MESSAGE;

        /**
         * Bytes the server may hold, over all connections, in requests over 16KB arriving or
         * waiting to run; one that does not fit is answered SERVER_BUSY unread. Empty: half the
         * JVM's maximum direct memory.
         */
        private DataSize maxRequestMemory;

        public DataSize getMaxRequestMemory() {
            return maxRequestMemory;
        }

        public void setMaxRequestMemory(DataSize maxRequestMemory) {
            this.maxRequestMemory = maxRequestMemory;
        }

        public Duration getAuthenticationTimeout() {
            return authenticationTimeout;
        }

        public void setAuthenticationTimeout(Duration authenticationTimeout) {
            this.authenticationTimeout = authenticationTimeout;
        }

        public int getMaxAuthenticationFailures() {
            return maxAuthenticationFailures;
        }

        public void setMaxAuthenticationFailures(int maxAuthenticationFailures) {
            this.maxAuthenticationFailures = maxAuthenticationFailures;
        }

        public io.xrpc.server.ErrorDetails getErrorDetails() {
            return errorDetails;
        }

        public void setErrorDetails(io.xrpc.server.ErrorDetails errorDetails) {
            this.errorDetails = errorDetails;
        }

        public Duration getFrameTimeout() {
            return frameTimeout;
        }

        public void setFrameTimeout(Duration frameTimeout) {
            this.frameTimeout = frameTimeout;
        }

        public int getMaxConnections() {
            return maxConnections;
        }

        public void setMaxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
        }

        public int getMaxConnectionsPerAddress() {
            return maxConnectionsPerAddress;
        }

        public void setMaxConnectionsPerAddress(int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
        }

        public String getHost() {
            return host;
        }

        public void setHost(String host) {
            this.host = host;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public String getAdvertisedHost() {
            return advertisedHost;
        }

        public void setAdvertisedHost(String advertisedHost) {
            this.advertisedHost = advertisedHost;
        }

        public int getIoThreads() {
            return ioThreads;
        }

        public void setIoThreads(int ioThreads) {
            this.ioThreads = ioThreads;
        }

        public int getExecutorThreads() {
            return executorThreads;
        }

        public void setExecutorThreads(int executorThreads) {
            this.executorThreads = executorThreads;
        }

        public int getExecutorQueue() {
            return executorQueue;
        }

        public void setExecutorQueue(int executorQueue) {
            this.executorQueue = executorQueue;
        }

        public CallThreads getCallThreads() {
            return callThreads;
        }

        public void setCallThreads(CallThreads callThreads) {
            this.callThreads = callThreads;
        }

        public Duration getUnregisterDelay() {
            return unregisterDelay;
        }

        public void setUnregisterDelay(Duration unregisterDelay) {
            this.unregisterDelay = unregisterDelay;
        }

        public Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }
    }

    /** TLS of the provider, from a Spring Boot SSL bundle (spring.ssl.bundle.*). */
    public static class ServerSsl {
        /** Name of the SSL bundle whose key store the server serves; empty: plaintext. */
        private String bundle = "";

        /**
         * Whether clients must present a certificate the bundle's trust store accepts: none,
         * optional or require (mutual TLS).
         */
        private TlsConfig.ClientAuth clientAuth = TlsConfig.ClientAuth.NONE;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        public TlsConfig.ClientAuth getClientAuth() {
            return clientAuth;
        }

        public void setClientAuth(TlsConfig.ClientAuth clientAuth) {
            this.clientAuth = clientAuth;
        }
    }

    /** TLS of the consumer, from a Spring Boot SSL bundle (spring.ssl.bundle.*). */
    public static class ClientSsl {
        /**
         * Name of the SSL bundle whose trust store the client checks providers against, and whose
         * key store (if any) it presents for mutual TLS; empty: plaintext.
         */
        private String bundle = "";

        /** Whether a provider's certificate must name the host connected to. */
        private boolean verifyHostname = true;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    public static class Client {
        /** Default serializer: kryo, hessian or protostuff. */
        private String serializer = "kryo";

        /**
         * Whether a CallCredentials bean's credentials are sent without TLS too, readable by anyone
         * on the path: for development on loopback only. False: without an SSL bundle every call
         * that would carry them fails UNAUTHENTICATED unsent.
         */
        private boolean credentialsOverPlaintext = false;

        public boolean isCredentialsOverPlaintext() {
            return credentialsOverPlaintext;
        }

        public void setCredentialsOverPlaintext(boolean credentialsOverPlaintext) {
            this.credentialsOverPlaintext = credentialsOverPlaintext;
        }

        private final ClientSsl ssl = new ClientSsl();

        public ClientSsl getSsl() {
            return ssl;
        }

        /** Default compressor: none or gzip. */
        private String compressor = "none";

        /** Default deadline of a call. */
        private Duration timeout = Duration.ofSeconds(3);

        /** Further attempts of the failover cluster. */
        private int retries = 2;

        /** Default load balancer: random, round-robin, least-active or consistent-hash. */
        private String loadBalancer = "random";

        /** Default cluster strategy: failover, failfast or failsafe. */
        private String cluster = "failover";

        /** Multiplexed connections per provider. */
        private int connectionsPerEndpoint = 1;

        /** Calls that may be pending at once; more fail at once with RESOURCE_EXHAUSTED. */
        private int maxPendingCalls = 65_536;

        public String getSerializer() {
            return serializer;
        }

        public void setSerializer(String serializer) {
            this.serializer = serializer;
        }

        public String getCompressor() {
            return compressor;
        }

        public void setCompressor(String compressor) {
            this.compressor = compressor;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public int getRetries() {
            return retries;
        }

        public void setRetries(int retries) {
            this.retries = retries;
        }

        public String getLoadBalancer() {
            return loadBalancer;
        }

        public void setLoadBalancer(String loadBalancer) {
            this.loadBalancer = loadBalancer;
        }

        public String getCluster() {
            return cluster;
        }

        public void setCluster(String cluster) {
            this.cluster = cluster;
        }

        public int getConnectionsPerEndpoint() {
            return connectionsPerEndpoint;
        }

        public void setConnectionsPerEndpoint(int connectionsPerEndpoint) {
            this.connectionsPerEndpoint = connectionsPerEndpoint;
        }

        public int getMaxPendingCalls() {
            return maxPendingCalls;
        }

        public void setMaxPendingCalls(int maxPendingCalls) {
            this.maxPendingCalls = maxPendingCalls;
        }

        /** Bytes of requests that may wait to be written to one provider; beyond, calls to it fail at once. */
        private DataSize maxPendingRequestBytes = DataSize.ofMegabytes(64);

        private final OutlierDetection outlierDetection = new OutlierDetection();

        public DataSize getMaxPendingRequestBytes() {
            return maxPendingRequestBytes;
        }

        public void setMaxPendingRequestBytes(DataSize maxPendingRequestBytes) {
            this.maxPendingRequestBytes = maxPendingRequestBytes;
        }

        public OutlierDetection getOutlierDetection() {
            return outlierDetection;
        }
    }

    /** Setting aside a provider whose calls keep going unanswered. */
    public static class OutlierDetection {
        /** Calls in a row that went unanswered (or lost their connection) before a provider is set aside; 0 turns it off. */
        private int consecutiveFailures = 3;

        /** How long a provider is first set aside; doubled for every ejection in a row. */
        private Duration baseEjection = Duration.ofSeconds(5);

        /** The longest a provider is set aside. */
        private Duration maxEjection = Duration.ofSeconds(60);

        public int getConsecutiveFailures() {
            return consecutiveFailures;
        }

        public void setConsecutiveFailures(int consecutiveFailures) {
            this.consecutiveFailures = consecutiveFailures;
        }

        public Duration getBaseEjection() {
            return baseEjection;
        }

        public void setBaseEjection(Duration baseEjection) {
            this.baseEjection = baseEjection;
        }

        public Duration getMaxEjection() {
            return maxEjection;
        }

        public void setMaxEjection(Duration maxEjection) {
            this.maxEjection = maxEjection;
        }
    }

    @Override
    public void afterPropertiesSet() {
        // Checked against what ServiceLoader finds, so an application's own serializer (or
        // compressor, balancer, cluster) is a valid name as soon as it is on the classpath.
        oneOf("xrpc.client.serializer", client.serializer, Extensions.serializers());
        oneOf("xrpc.client.compressor", client.compressor, Extensions.compressors());
        oneOf("xrpc.client.load-balancer", client.loadBalancer, Extensions.loadBalancers());
        oneOf("xrpc.client.cluster", client.cluster, Extensions.clusters());
        positive("xrpc.client.timeout", client.timeout);
        atLeast("xrpc.client.retries", client.retries, 0);
        atLeast("xrpc.client.connections-per-endpoint", client.connectionsPerEndpoint, 1);
        atLeast("xrpc.client.max-pending-calls", client.maxPendingCalls, 1);
        if (server.port < 0 || server.port > 65535) {
            throw new InvalidConfigurationPropertyValueException("xrpc.server.port", server.port, "expected 0-65535");
        }
        atLeast("xrpc.server.io-threads", server.ioThreads, 0);
        atLeast("xrpc.server.executor-threads", server.executorThreads, 1);
        atLeast("xrpc.server.executor-queue", server.executorQueue, 0);
        if (server.callThreads.unavailableReason() != null) {
            throw new InvalidConfigurationPropertyValueException("xrpc.server.call-threads", server.callThreads,
                    server.callThreads.unavailableReason() + " (expected: platform on this JVM)");
        }
        notNegative("xrpc.server.unregister-delay", server.unregisterDelay);
        notNegative("xrpc.server.shutdown-grace", server.shutdownGrace);
        positive("xrpc.heartbeat-interval", heartbeatInterval);
        positive("xrpc.registry.session-timeout", registry.sessionTimeout);
        positive("xrpc.registry.connect-timeout", registry.connectTimeout);
        if (maxFrameLength.toBytes() < ProtocolConstants.MIN_FRAME_LENGTH || maxFrameLength.toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException("xrpc.max-frame-length", maxFrameLength,
                    "expected 16KB to 2GB");
        }
        atLeast("xrpc.max-objects-per-message", maxObjectsPerMessage, 1);
        atLeast("xrpc.max-depth", maxDepth, 1);
        bytes("xrpc.write-buffer.low-water-mark", writeBuffer.lowWaterMark, 1);
        bytes("xrpc.write-buffer.high-water-mark", writeBuffer.highWaterMark, writeBuffer.lowWaterMark.toBytes());
        positive("xrpc.server.frame-timeout", server.frameTimeout);
        atLeast("xrpc.server.max-connections", server.maxConnections, 1);
        atLeast("xrpc.server.max-connections-per-address", server.maxConnectionsPerAddress, 0);
        notNegative("xrpc.server.authentication-timeout", server.authenticationTimeout);
        if (server.maxRequestMemory != null && server.maxRequestMemory.toBytes() < 16 * 1024) {
            throw new InvalidConfigurationPropertyValueException("xrpc.server.max-request-memory",
                    server.maxRequestMemory, "expected >= 16KB");
        }
        atLeast("xrpc.server.max-authentication-failures", server.maxAuthenticationFailures, 0);
        if (client.maxPendingRequestBytes == null || client.maxPendingRequestBytes.toBytes() < 1024) {
            throw new InvalidConfigurationPropertyValueException("xrpc.client.max-pending-request-bytes",
                    client.maxPendingRequestBytes, "expected >= 1KB");
        }
        atLeast("xrpc.client.outlier-detection.consecutive-failures", client.outlierDetection.consecutiveFailures, 0);
        positive("xrpc.client.outlier-detection.base-ejection", client.outlierDetection.baseEjection);
        positive("xrpc.client.outlier-detection.max-ejection", client.outlierDetection.maxEjection);
        if (client.outlierDetection.maxEjection.compareTo(client.outlierDetection.baseEjection) < 0) {
            throw new InvalidConfigurationPropertyValueException("xrpc.client.outlier-detection.max-ejection",
                    client.outlierDetection.maxEjection, "expected >= xrpc.client.outlier-detection.base-ejection");
        }
        if (registry.emptyListGrace != null) {
            notNegative("xrpc.registry.empty-list-grace", registry.emptyListGrace);
        }
        if (registry.embeddedPort != null && (registry.embeddedPort < 1 || registry.embeddedPort > 65535)) {
            throw new InvalidConfigurationPropertyValueException("xrpc.registry.embedded-port", registry.embeddedPort,
                    "expected 1 to 65535");
        }
        if (compressThreshold.toBytes() < 0 || compressThreshold.toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException("xrpc.compress-threshold", compressThreshold,
                    "expected 0 to 2GB");
        }
        String rp = registry.rootPath;
        if (rp == null || !rp.startsWith("/") || rp.length() < 2 || rp.endsWith("/")) {
            throw new InvalidConfigurationPropertyValueException("xrpc.registry.root-path", rp,
                    "expected /name with no trailing /");
        }
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

    private static void oneOf(String name, String value, Set<String> allowed) {
        if (value == null || !allowed.contains(value)) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected one of "
                    + new java.util.TreeSet<>(allowed));
        }
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected a duration > 0");
        }
    }

    private static void notNegative(String name, Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected a duration >= 0");
        }
    }

    private static void bytes(String name, DataSize value, long min) {
        if (value == null || value.toBytes() < min || value.toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected " + min + "B to 2GB");
        }
    }

    private static void atLeast(String name, int value, int min) {
        if (value < min) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected >= " + min);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public DataSize getMaxFrameLength() {
        return maxFrameLength;
    }

    public void setMaxFrameLength(DataSize maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
    }

    public DataSize getCompressThreshold() {
        return compressThreshold;
    }

    public void setCompressThreshold(DataSize compressThreshold) {
        this.compressThreshold = compressThreshold;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public List<String> getAllowedClasses() {
        return allowedClasses;
    }

    public void setAllowedClasses(List<String> allowedClasses) {
        this.allowedClasses = allowedClasses;
    }

    public List<String> getAllowedPackages() {
        return allowedPackages;
    }

    public void setAllowedPackages(List<String> allowedPackages) {
        this.allowedPackages = allowedPackages;
    }

    public int getMaxObjectsPerMessage() {
        return maxObjectsPerMessage;
    }

    public void setMaxObjectsPerMessage(int maxObjectsPerMessage) {
        this.maxObjectsPerMessage = maxObjectsPerMessage;
    }

    public int getMaxDepth() {
        return maxDepth;
    }

    public void setMaxDepth(int maxDepth) {
        this.maxDepth = maxDepth;
    }

    public TypeCheck.Mode getTypeCheck() {
        return typeCheck;
    }

    public void setTypeCheck(TypeCheck.Mode typeCheck) {
        this.typeCheck = typeCheck;
    }

    public WriteBuffer getWriteBuffer() {
        return writeBuffer;
    }

    /** The read limits both sides apply. */
    ReadLimits readLimits() {
        return ReadLimits.of(maxObjectsPerMessage, maxDepth);
    }

    public Registry getRegistry() {
        return registry;
    }

    public Server getServer() {
        return server;
    }

    public Client getClient() {
        return client;
    }
}
