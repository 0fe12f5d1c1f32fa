package io.xrpc.client;

import io.xrpc.cluster.Cluster;
import io.xrpc.cluster.Directory;
import io.xrpc.cluster.Providers;
import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.Subsetting;
import io.xrpc.internal.NamedExtensions;
import io.xrpc.loadbalance.Aperture;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.Registries;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.ClientTransport;
import io.xrpc.transport.netty.NettyClientTransport;
import io.xrpc.transport.netty.NettyVersion;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes proxies that call remote services. One client holds the event loops, connections and
 * deadline timer that all its proxies share, so make one per application and close it on exit.
 *
 * <pre>{@code
 * try (RpcClient client = RpcClient.builder().build()) {
 *     Greeter greeter = client.proxy(Greeter.class,
 *             ReferenceOptions.builder().address("127.0.0.1:20880").build());
 *     String hi = greeter.hello("world");
 * }
 * }</pre>
 *
 * <p>A synchronous method blocks its caller until the response or the deadline; a method returning
 * {@link java.util.concurrent.CompletableFuture} blocks no thread. Every call ends by its deadline
 * (default 3 s) at the latest, failing with an {@link io.xrpc.common.RpcException} whose message
 * names the service, method, address and timeout. Thread-safe.
 */
public final class RpcClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RpcClient.class);
    /** Default of {@link Builder#maxPendingRequestBytes}: 64 MiB. */
    public static final long DEFAULT_MAX_PENDING_REQUEST_BYTES = 64L * 1024 * 1024;
    /** Default consecutive failures of {@link Builder#outlierDetection}. */
    public static final int DEFAULT_OUTLIER_FAILURES = 3;
    /** Default first ejection of {@link Builder#outlierDetection}. */
    public static final Duration DEFAULT_OUTLIER_BASE_EJECTION = Duration.ofSeconds(5);
    /** Default of {@link Builder#pingTimeout}. */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofMillis(100);
    /** Default longest ejection of {@link Builder#outlierDetection}. */
    public static final Duration DEFAULT_OUTLIER_MAX_EJECTION = Duration.ofSeconds(60);

    private final ClientConfig config;
    private final ClassAllowList allowList;
    private final SerializerRegistry serializers;
    private final CompressorRegistry compressors;
    private final ClientTransport transport;
    private final ServiceDiscovery discovery;
    private final boolean ownsDiscovery;
    private final NamedExtensions<LoadBalancerProvider> loadBalancers;
    private final NamedExtensions<Cluster> clusters;
    /** Every reference made by {@link #proxy} and {@link #generic}, in the order made. */
    private final References made;

    private volatile boolean closed;

    /** Sends hedged attempts (and encodes them); made when the first hedge is scheduled. */
    private volatile ScheduledThreadPoolExecutor hedgeTimer;

    private ScheduledExecutorService hedgeTimer() {
        ScheduledThreadPoolExecutor t = hedgeTimer;
        return t != null ? t : makeHedgeTimer();
    }

    private synchronized ScheduledExecutorService makeHedgeTimer() {
        if (hedgeTimer == null) {
            hedgeTimer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "xrpc-hedge-timer");
                t.setDaemon(true);
                return t;
            });
            hedgeTimer.setRemoveOnCancelPolicy(true); // a hedge not needed leaves nothing queued
            if (closed) {
                hedgeTimer.shutdown();
            }
        }
        return hedgeTimer;
    }

    private RpcClient(ClientConfig c, ClassAllowList allowList) {
        this.config = c;
        this.allowList = allowList;
        this.serializers = SerializerRegistry.load(allowList, c.readLimits);
        this.compressors = CompressorRegistry.load();
        // Fail at build time, with the list of known names, rather than on the first call.
        serializers.get(c.serializer);
        compressors.get(c.compressor);
        this.loadBalancers = NamedExtensions.load("loadBalancer", LoadBalancerProvider.class);
        this.clusters = NamedExtensions.load("cluster", Cluster.class);
        this.transport = new NettyClientTransport(c, compressors);
        this.made = new References(transport);
        this.ownsDiscovery = c.discovery == null && c.registryAddress != null;
        try {
            this.discovery = ownsDiscovery ? Registries.create(c.registryAddress) : c.discovery;
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A proxy that calls {@code serviceInterface} as {@code options} say. The interface's parameter
     * and return types join this client's allow-list. Unknown serializer or compressor names fail
     * here, listing the known ones.
     */
    public <T> T proxy(Class<T> serviceInterface, ReferenceOptions options) {
        Objects.requireNonNull(serviceInterface, "serviceInterface");
        Objects.requireNonNull(options, "options");
        if (!serviceInterface.isInterface()) {
            throw new IllegalArgumentException(
                    "serviceInterface: " + serviceInterface.getName() + " (expected: an interface)");
        }
        Serializer serializer =
                serializers.get(options.serializer() != null ? options.serializer() : config.serializer);
        ServiceKey key = ServiceKey.of(serviceInterface, options.version(), options.group());
        // Before the directory: a discovered one subscribes at once, and a refusal here would leave
        // that subscription open with no reference to close it.
        allowList.allowTypesOf(serviceInterface);
        if (config.typeCheck != TypeCheck.Mode.OFF) {
            List<String> problems = TypeCheck.problems(serviceInterface, serializer);
            if (!problems.isEmpty() && config.typeCheck == TypeCheck.Mode.FAIL) {
                throw new TypeCheck.UnsupportedTypeException("cannot reference " + key + ": "
                        + String.join("; ", problems) + " (choose another serializer, or typeCheck(WARN) to go on)");
            }
            problems.forEach(p -> log.warn("Referencing {}: {}; calls that carry it will fail", key, p));
        }
        Reference r = reference(key, serviceInterface.getName(), options, serializer);
        ClientProxy handler = new ClientProxy(
                serviceInterface, r.providers, allowList, r.timeout, options.methodTimeouts(), config, r.cluster);
        return serviceInterface.cast(
                Proxy.newProxyInstance(serviceInterface.getClassLoader(), new Class<?>[] {serviceInterface}, handler));
    }

    /**
     * A reference to {@code serviceInterface} without its classes: generic invocation, as Dubbo's
     * {@code GenericService} and the tools built on it (gateways, test platforms, the {@code xrpc}
     * command line) use. Calls name the method and its parameter types and pass JSON-shaped values;
     * they travel in the {@code json} serializer, which the provider reads as its declared types,
     * and otherwise go exactly as a typed reference's calls do: the same discovery, load balancing,
     * failover, deadlines, TLS, credentials and interceptors. {@code options} work as for
     * {@link #proxy}, but the serializer is always {@code json}.
     *
     * <p>References are shared: asking again for the same interface with equal options returns the
     * same {@code GenericService} (one subscription, one retry budget), so a gateway or tool may ask
     * per call. A client holds at most {@value #MAX_GENERIC_REFERENCES} distinct ones; past that this
     * fails, since every one keeps its providers (and with a registry, a subscription) until the
     * client closes.
     *
     * @param serviceInterface the service's interface name, such as {@code com.acme.Orders}
     * @throws IllegalArgumentException when {@code options} name another serializer
     * @throws IllegalStateException past {@value #MAX_GENERIC_REFERENCES} distinct references
     */
    public GenericService generic(String serviceInterface, ReferenceOptions options) {
        Objects.requireNonNull(serviceInterface, "serviceInterface");
        Objects.requireNonNull(options, "options");
        if (serviceInterface.isBlank()) {
            throw new IllegalArgumentException(
                    "serviceInterface: blank (expected: an interface name such as" + " com.acme.Orders)");
        }
        if (options.serializer() != null && !options.serializer().equals(GenericService.SERIALIZER)) {
            throw new IllegalArgumentException("serializer: " + options.serializer() + " (generic calls travel in"
                    + " json, which the provider reads as its declared types)");
        }
        GenericKey k = new GenericKey(serviceInterface, options);
        GenericService shared = generics.get(k);
        if (shared != null) {
            return shared;
        }
        synchronized (generics) { // rare: a new service or new options; one reference made for each
            shared = generics.get(k);
            if (shared != null) {
                return shared;
            }
            if (generics.size() >= MAX_GENERIC_REFERENCES) {
                throw new IllegalStateException("generic reference to " + serviceInterface + ": this client holds "
                        + MAX_GENERIC_REFERENCES + " already, each with its providers until the client closes (equal"
                        + " options share one: build the options once, or use another client for passing services)");
            }
            Serializer serializer = serializers.get(GenericService.SERIALIZER);
            ServiceKey key = new ServiceKey(serviceInterface, options.version(), options.group());
            Reference r = reference(key, serviceInterface, options, serializer);
            GenericService made =
                    new GenericService(r.providers, r.timeout, options.methodTimeouts(), config, r.cluster);
            generics.put(k, made);
            return made;
        }
    }

    /**
     * The reference's subset ({@link Subsetting}): placed as configured, else by the registry
     * (which learns of this consumer only once a list is large enough to subset); never for
     * fixed addresses or {@code consistent-hash}.
     */
    private Aperture aperture(ServiceKey key, ReferenceOptions options, Directory directory) {
        Subsetting s = options.subsetting();
        if (!s.enabled()
                || options.loadBalancer().equals("consistent-hash")
                || !options.addresses().isEmpty()) {
            return Aperture.off();
        }
        if (s.positioned()) {
            PeerPosition fixed = new PeerPosition(s.peerIndex(), s.peerCount());
            return new Aperture(s, () -> fixed, made::pruneSoon);
        }
        if (discovery == null) {
            return Aperture.off();
        }
        Supplier<PeerPosition> lazy = new Supplier<>() {
            private volatile Supplier<PeerPosition> peers;

            @Override
            public PeerPosition get() {
                Supplier<PeerPosition> p = peers;
                if (p == null) {
                    p = discovery.peers(key); // returns at once; the registry keeps one per service
                    peers = p;
                }
                return p.get();
            }
        };
        if (directory.instances().size() > s.threshold()) {
            lazy.get(); // large already: be placed before the first calls, not after them
        }
        return new Aperture(s, lazy, made::pruneSoon);
    }

    /** Distinct generic references one client holds at most ({@link #generic}). */
    public static final int MAX_GENERIC_REFERENCES = 1024;
    /** Generic references by interface and options, shared. */
    private final Map<GenericKey, GenericService> generics = new ConcurrentHashMap<>();

    private record GenericKey(String serviceInterface, ReferenceOptions options) {}

    /** What a typed and a generic reference share, made as {@link #reference} makes it. */
    private record Reference(Providers providers, Cluster cluster, Duration timeout) {}

    /**
     * The providers, balancer, cluster and timeout of a new reference, recorded for
     * {@link #references()}. Unknown names fail here, listing the known ones.
     */
    private Reference reference(ServiceKey key, String typeName, ReferenceOptions options, Serializer serializer) {
        Compressor compressor =
                compressors.get(options.compressor() != null ? options.compressor() : config.compressor);
        Cluster cluster = clusters.get(options.cluster());
        LoadBalancer balancer = loadBalancers.get(options.loadBalancer()).create(new LoadBalancerProvider.Context() {
            @Override
            public int activeCalls(Endpoint endpoint) {
                return transport.activeCalls(endpoint);
            }

            @Override
            public long latencyNanos(Endpoint endpoint) {
                return transport.latencyNanos(endpoint);
            }

            @Override
            public int[] hashArguments() {
                return options.hashArguments();
            }
        });
        Directory directory;
        if (!options.addresses().isEmpty()) {
            directory = Directory.fixed(key, options.addresses());
        } else if (discovery != null) {
            directory = Directory.discovered(key, discovery, made::pruneSoon);
        } else {
            throw new IllegalArgumentException("reference to " + key + ": no address and no registry (expected:"
                    + " ReferenceOptions.address(\"host:port\") or RpcClient.builder().registry(...))");
        }
        Duration timeout = options.timeout() != null ? options.timeout() : config.timeout;
        String source =
                options.addresses().isEmpty() ? "registry" : options.addresses().toString();
        Providers providers = new Providers(
                key,
                directory,
                serializer,
                compressor,
                transport,
                balancer,
                options,
                aperture(key, options, directory),
                this::hedgeTimer);
        made.add(new References.Made(
                providers,
                typeName,
                source,
                options.loadBalancer(),
                options.cluster(),
                serializer.name(),
                compressor.name(),
                timeout));
        log.info(
                "Referencing {} through {} with {}/{}, {} load balancer, {} cluster, timeout {} ms; providers now: {}",
                key,
                options.addresses().isEmpty() ? "the registry" : source,
                serializer.name(),
                compressor.name(),
                options.loadBalancer(),
                options.cluster(),
                timeout.toMillis(),
                directory.instances().size());
        if ((options.hedging() != null || !options.methodHedging().isEmpty())
                && !cluster.name().equals("failover")) {
            log.warn(
                    "Referencing {}: hedging is done by the failover cluster; the {} cluster does not hedge",
                    key,
                    cluster.name());
        }
        if (config.credentialsRefusal != null) {
            log.warn("Referencing {}: {}; its calls fail UNAUTHENTICATED", key, config.credentialsRefusal);
        }
        return new Reference(providers, cluster, timeout);
    }

    /** The classes this client's serializers may construct from responses. */
    public ClassAllowList allowList() {
        return allowList;
    }

    /** Calls not yet ended, over every proxy of this client. */
    public int pendingCalls() {
        return transport.pendingCalls();
    }

    /**
     * Bytes of encoded requests waiting to be written, over all providers: they wait while a
     * provider reads slower than calls are made, each provider's share bounded by
     * {@link Builder#maxPendingRequestBytes}.
     */
    public long queuedRequestBytes() {
        return transport.queuedRequestBytes();
    }

    /**
     * For each reference made by {@link #proxy}, in the order made, its service key and how many
     * providers it sees now (several references to one service appear once each).
     */
    public List<Map.Entry<String, Integer>> providerCounts() {
        return made.providerCounts();
    }

    /**
     * Every reference made by {@link #proxy}, in the order made, with the providers each sees now
     * and their connection state: a snapshot for operators (the Spring Boot starter's Actuator
     * endpoint shows it). Costs a few reads per provider; takes no lock a call takes.
     */
    public List<ReferenceView> references() {
        return made.views();
    }

    /** Open provider connections. */
    public int openConnections() {
        return transport.openConnections();
    }

    /**
     * Fails pending calls with {@link io.xrpc.common.RpcStatus#CANCELLED} and releases every
     * resource, including the registry connection if this client opened it.
     */
    @Override
    public void close() {
        closed = true;
        made.close();
        transport.close();
        synchronized (this) {
            if (hedgeTimer != null) {
                hedgeTimer.shutdownNow();
            }
        }
        if (ownsDiscovery) {
            discovery.close();
        }
        log.info("XRpc client stopped ({} references)", made.size());
    }

    /** Client-wide settings; every one has a default. Not thread-safe. */
    /**
     * A client's settings; every one has a default ({@link ClientSettings} and
     * {@link io.xrpc.config.EndpointBuilder} document them). Not thread-safe.
     */
    public static final class Builder extends ClientSettings<Builder> {
        private Builder() {}

        /** Checks and freezes the settings; building twice gives two independent clients. */
        public RpcClient build() {
            NettyVersion.require();
            return new RpcClient(config(), allowListCopy());
        }
    }
}
