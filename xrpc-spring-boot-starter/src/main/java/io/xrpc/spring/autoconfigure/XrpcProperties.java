package io.xrpc.spring.autoconfigure;

import io.xrpc.common.Endpoint;
import io.xrpc.protocol.ProtocolConstants;
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
    private static final Set<String> SERIALIZERS = Set.of("kryo", "hessian", "protostuff");
    private static final Set<String> COMPRESSORS = Set.of("none", "gzip");
    private static final Set<String> BALANCERS = Set.of("random", "round-robin", "least-active", "consistent-hash");
    private static final Set<String> CLUSTERS = Set.of("failover", "failfast", "failsafe");

    /** Whether XRpc is configured at all. */
    private boolean enabled = true;

    /** Largest frame body accepted, also after decompression. */
    private DataSize maxFrameLength = DataSize.ofBytes(ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH);

    /** Bodies smaller than this are sent uncompressed even when a compressor is chosen. */
    private DataSize compressThreshold = DataSize.ofKilobytes(1);

    /** Idle time after which a ping is sent; three without any read close the connection. */
    private Duration heartbeatInterval = Duration.ofSeconds(30);

    /** Classes (binary names) that payloads may construct beyond the services' own types. */
    private List<String> allowedClasses = new ArrayList<>();

    /** Packages whose classes payloads may construct. */
    private List<String> allowedPackages = new ArrayList<>();

    private final Registry registry = new Registry();
    private final Server server = new Server();
    private final Client client = new Client();

    public static class Registry {
        /**
         * Registry address: {@code zookeeper://host:2181[,host:2181]}, {@code host:2181}, or
         * {@code embedded} for an in-process ZooKeeper. Empty: no registry, references need a url.
         */
        private String address = "";

        /** How long a silent provider stays registered. */
        private Duration sessionTimeout = Duration.ofSeconds(30);

        /** How long start-up waits for the registry. */
        private Duration connectTimeout = Duration.ofSeconds(10);

        /** Root node of every XRpc path. */
        private String rootPath = "/xrpc";

        public String getAddress() {
            return address;
        }

        public void setAddress(String address) {
            this.address = address;
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
    }

    public static class Server {
        /** Address to bind. */
        private String host = "0.0.0.0";

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

        /** On shutdown, time between unregistering and draining, so consumers stop routing here. */
        private Duration unregisterDelay = Duration.ofSeconds(1);

        /** On shutdown, how long calls in flight may take to finish. */
        private Duration shutdownGrace = Duration.ofSeconds(10);

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

    public static class Client {
        /** Default serializer: kryo, hessian or protostuff. */
        private String serializer = "kryo";

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
    }

    @Override
    public void afterPropertiesSet() {
        oneOf("xrpc.client.serializer", client.serializer, SERIALIZERS);
        oneOf("xrpc.client.compressor", client.compressor, COMPRESSORS);
        oneOf("xrpc.client.load-balancer", client.loadBalancer, BALANCERS);
        oneOf("xrpc.client.cluster", client.cluster, CLUSTERS);
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
        notNegative("xrpc.server.unregister-delay", server.unregisterDelay);
        notNegative("xrpc.server.shutdown-grace", server.shutdownGrace);
        positive("xrpc.heartbeat-interval", heartbeatInterval);
        positive("xrpc.registry.session-timeout", registry.sessionTimeout);
        positive("xrpc.registry.connect-timeout", registry.connectTimeout);
        if (maxFrameLength.toBytes() < 1024 || maxFrameLength.toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException("xrpc.max-frame-length", maxFrameLength,
                    "expected 1KB to 2GB");
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
