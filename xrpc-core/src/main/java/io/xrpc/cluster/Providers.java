package io.xrpc.cluster;

import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.loadbalance.Aperture;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.CallTarget;
import io.xrpc.transport.ClientTransport;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What every call of one reference goes to, as Dubbo's cluster invoker holds its directory and
 * load balancer: the providers ({@link Directory}), the balancer that picks among them, the
 * transport that reaches them with the reference's serializer and compressor, and the retry
 * rules the methods share (how many retries, the retry budget, the counters, the hedging the
 * options ask for, the bound of one attempt). Each method of the reference gets its
 * {@link Attempts} from here once, when the proxy is made. Thread-safe.
 */
public final class Providers {
    final ServiceKey key;
    final Directory directory;
    final Serializer serializer;
    final Compressor compressor;
    final ClientTransport transport;
    final LoadBalancer loadBalancer;
    /** The subset of the providers calls go to first (Subsetting). */
    final Aperture aperture;

    private final ReferenceOptions options;
    private final RetryBudget budget;
    private final CallCounters counters = new CallCounters();
    /** The client's timer that sends hedges, made when first needed. */
    final Supplier<ScheduledExecutorService> timer;
    /** The bound of one attempt, 0 for none. */
    final long attemptTimeoutNanos;

    /**
     * @param timer the client's timer for hedged attempts; asked only when a hedge is scheduled
     */
    public Providers(
            ServiceKey key,
            Directory directory,
            Serializer serializer,
            Compressor compressor,
            ClientTransport transport,
            LoadBalancer loadBalancer,
            ReferenceOptions options,
            Aperture aperture,
            Supplier<ScheduledExecutorService> timer) {
        this.key = Objects.requireNonNull(key, "key");
        this.directory = Objects.requireNonNull(directory, "directory");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.compressor = Objects.requireNonNull(compressor, "compressor");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loadBalancer = Objects.requireNonNull(loadBalancer, "loadBalancer");
        this.options = Objects.requireNonNull(options, "options");
        this.aperture = Objects.requireNonNull(aperture, "aperture");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.budget = options.retryBudgetTokens() == 0
                ? RetryBudget.UNLIMITED
                : new RetryBudget(options.retryBudgetTokens(), options.retryBudgetRatio());
        this.attemptTimeoutNanos =
                options.attemptTimeout() == null ? 0 : options.attemptTimeout().toNanos();
    }

    /**
     * The attempts of one method: {@code target} names it on the wire, {@code timeoutMillis} is its
     * deadline (what the provider is told), {@code idempotent} whether it may be retried after it
     * may have run, and hedged when the options hedge {@code methodName} (never when it {@code stream}s).
     */
    public Attempts attempts(
            String methodName, CallTarget target, long timeoutMillis, boolean idempotent, boolean stream) {
        // Only idempotent methods are hedged, and never a stream: its first attempt may have delivered messages.
        Hedging hedging = idempotent && !stream ? options.hedging(methodName) : null;
        return new Attempts(this, target, timeoutMillis, idempotent, hedging);
    }

    /** The providers calls go to first: the reference's subset of the current list, or all of it (Subsetting). */
    public List<ServiceInstance> subset() {
        return aperture.window(directory.instances());
    }

    /** The service these providers serve. */
    public ServiceKey key() {
        return key;
    }

    /** The reference's serializer: every call's body, and the providers that accept it. */
    public Serializer serializer() {
        return serializer;
    }

    /** True on one of the transport's I/O threads, where waiting for an answer would deadlock. */
    public boolean onTransportThread() {
        return transport.isTransportThread();
    }

    /** The providers, as they are now. */
    public Directory directory() {
        return directory;
    }

    /** How many times a failed call may be tried again. */
    public int retries() {
        return options.retries();
    }

    /** The retry budget every retry and hedge of the reference spends from. */
    public RetryBudget budget() {
        return budget;
    }

    /** Where the reference's calls, retries and hedges are counted. */
    public CallCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return directory + ", " + serializer.name() + "/" + compressor.name();
    }
}
