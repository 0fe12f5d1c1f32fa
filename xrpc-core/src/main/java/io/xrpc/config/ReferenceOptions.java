package io.xrpc.config;

import io.xrpc.common.Endpoint;
import io.xrpc.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a client calls one service: which version and group, through which serializer and
 * compressor, to which provider addresses, with which deadline (per reference, overridable per
 * method). Unset values fall back to the {@link io.xrpc.client.RpcClient}'s defaults. Immutable;
 * build with {@link #builder()}.
 */
public final class ReferenceOptions {
    /** The retry budget's default size: 100 tokens. */
    public static final int DEFAULT_RETRY_BUDGET_TOKENS = 100;
    /** What an answered attempt puts back into the retry budget by default. */
    public static final double DEFAULT_RETRY_BUDGET_RATIO = 0.1;

    private final String version;
    private final String group;
    private final Duration timeout;
    private final Map<String, Duration> methodTimeouts;
    private final String serializer;
    private final String compressor;
    private final List<Endpoint> addresses;
    private final String loadBalancer;
    private final String cluster;
    private final int retries;
    private final Duration attemptTimeout;
    private final int[] hashArguments;
    private final int retryBudgetTokens;
    private final double retryBudgetRatio;
    private final Hedging hedging;
    private final Map<String, Hedging> methodHedging;
    private final Subsetting subsetting;

    private ReferenceOptions(Builder b) {
        this.version = b.version;
        this.group = b.group;
        this.timeout = b.timeout;
        this.methodTimeouts = Map.copyOf(b.methodTimeouts);
        this.serializer = b.serializer;
        this.compressor = b.compressor;
        this.addresses = List.copyOf(b.addresses);
        this.loadBalancer = b.loadBalancer;
        this.cluster = b.cluster;
        this.retries = b.retries;
        this.attemptTimeout = b.attemptTimeout;
        this.hashArguments = b.hashArguments.clone();
        this.retryBudgetTokens = b.retryBudgetTokens;
        this.retryBudgetRatio = b.retryBudgetRatio;
        this.hedging = b.hedging;
        this.methodHedging = Map.copyOf(b.methodHedging);
        this.subsetting = b.subsetting;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Equal when every option is: what {@code RpcClient.generic} shares a reference by. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ReferenceOptions r
                && retries == r.retries
                && Objects.equals(attemptTimeout, r.attemptTimeout)
                && retryBudgetTokens == r.retryBudgetTokens
                && Double.compare(retryBudgetRatio, r.retryBudgetRatio) == 0
                && Objects.equals(version, r.version)
                && Objects.equals(group, r.group)
                && Objects.equals(timeout, r.timeout)
                && methodTimeouts.equals(r.methodTimeouts)
                && Objects.equals(serializer, r.serializer)
                && Objects.equals(compressor, r.compressor)
                && addresses.equals(r.addresses)
                && Objects.equals(loadBalancer, r.loadBalancer)
                && Objects.equals(cluster, r.cluster)
                && Arrays.equals(hashArguments, r.hashArguments)
                && Objects.equals(hedging, r.hedging)
                && methodHedging.equals(r.methodHedging)
                && subsetting.equals(r.subsetting);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                version,
                group,
                timeout,
                methodTimeouts,
                serializer,
                compressor,
                addresses,
                loadBalancer,
                cluster,
                retries,
                attemptTimeout,
                Arrays.hashCode(hashArguments),
                retryBudgetTokens,
                retryBudgetRatio,
                hedging,
                methodHedging,
                subsetting);
    }

    public String version() {
        return version;
    }

    public String group() {
        return group;
    }

    /** The deadline of each call, or {@code null} for the client's default. */
    public Duration timeout() {
        return timeout;
    }

    /** Deadlines by method name that override {@link #timeout()}. */
    public Map<String, Duration> methodTimeouts() {
        return methodTimeouts;
    }

    /** Serializer name, or {@code null} for the client's default. */
    public String serializer() {
        return serializer;
    }

    /** Compressor name, or {@code null} for the client's default. */
    public String compressor() {
        return compressor;
    }

    /**
     * Direct provider addresses. When set, the client's registry is not consulted for this
     * reference; the load balancer and cluster strategy still apply.
     */
    public List<Endpoint> addresses() {
        return addresses;
    }

    /**
     * Load balancer name: {@code p2c} (default: the power of two choices over calls in flight and
     * latency, which steers away from a slow or frozen provider), {@code random},
     * {@code round-robin}, {@code least-active}, {@code consistent-hash}.
     */
    public String loadBalancer() {
        return loadBalancer;
    }

    /** Cluster strategy name: {@code failover} (default), {@code failfast}, {@code failsafe}. */
    public String cluster() {
        return cluster;
    }

    /** Further attempts {@code failover} may make after the first: default 2. */
    public int retries() {
        return retries;
    }

    /**
     * The longest one attempt of a call may take, or {@code null} (the default) when an attempt may
     * take what is left of the call's deadline. The call's deadline ({@link #timeout()}) holds
     * across all its attempts either way.
     */
    public Duration attemptTimeout() {
        return attemptTimeout;
    }

    /**
     * Which of a large service's providers this consumer calls ({@link Subsetting}): by default an
     * aperture of at least 16 over lists of more than 64, placed by the registry.
     */
    public Subsetting subsetting() {
        return subsetting;
    }

    /** Argument positions that key {@code consistent-hash}: default the first. */
    public int[] hashArguments() {
        return hashArguments.clone();
    }

    /** The retry budget's size in tokens ({@link io.xrpc.cluster.RetryBudget}), 0 when retries are not throttled. */
    public int retryBudgetTokens() {
        return retryBudgetTokens;
    }

    /** What each answered attempt puts back into the retry budget. */
    public double retryBudgetRatio() {
        return retryBudgetRatio;
    }

    /** Hedging of the reference's {@code @Idempotent} methods, or {@code null} (the default) for none. */
    public Hedging hedging() {
        return hedging;
    }

    /** Hedging by method name that overrides {@link #hedging()}. */
    public Map<String, Hedging> methodHedging() {
        return methodHedging;
    }

    /** The hedging of the methods called {@code methodName}, or {@code null}. */
    public Hedging hedging(String methodName) {
        return methodHedging.getOrDefault(methodName, hedging);
    }

    public static final class Builder {
        private String version = "";
        private String group = "";
        private Duration timeout;
        private final Map<String, Duration> methodTimeouts = new HashMap<>();
        private String serializer;
        private String compressor;
        private final List<Endpoint> addresses = new ArrayList<>();
        private String loadBalancer = "p2c";
        private String cluster = "failover";
        private int retries = 2;
        private Duration attemptTimeout;
        private int[] hashArguments = {0};
        private Subsetting subsetting = Subsetting.defaults();
        private int retryBudgetTokens = DEFAULT_RETRY_BUDGET_TOKENS;
        private double retryBudgetRatio = DEFAULT_RETRY_BUDGET_RATIO;
        private Hedging hedging;
        private final Map<String, Hedging> methodHedging = new HashMap<>();

        private Builder() {}

        /**
         * Throttles retries and hedges with a token bucket of {@code maxTokens} (see
         * {@link io.xrpc.cluster.RetryBudget}): default 100 tokens, 0.1 back per answered attempt,
         * so that once half the bucket is spent, extra attempts stay near a tenth of the answered ones.
         */
        public Builder retryBudget(int maxTokens, double tokenRatio) {
            Checks.retryBudget(maxTokens, tokenRatio);
            this.retryBudgetTokens = maxTokens;
            this.retryBudgetRatio = tokenRatio;
            return this;
        }

        /** Retries and hedges are not throttled: each call makes every attempt its cluster allows. */
        public Builder noRetryBudget() {
            this.retryBudgetTokens = 0;
            return this;
        }

        /** Hedges every {@code @Idempotent} method of the reference ({@code null}: none). */
        public Builder hedging(Hedging hedging) {
            this.hedging = hedging;
            return this;
        }

        /** Hedges the {@code @Idempotent} methods called {@code methodName}, overriding {@link #hedging(Hedging)}. */
        public Builder methodHedging(String methodName, Hedging hedging) {
            methodHedging.put(
                    Objects.requireNonNull(methodName, "methodName"),
                    Objects.requireNonNull(hedging, "hedging of " + methodName));
            return this;
        }

        public Builder loadBalancer(String name) {
            this.loadBalancer = Objects.requireNonNull(name, "loadBalancer");
            return this;
        }

        public Builder cluster(String name) {
            this.cluster = Objects.requireNonNull(name, "cluster");
            return this;
        }

        /** Further attempts after the first for {@code failover}; 0 disables retrying. */
        public Builder retries(int retries) {
            this.retries = Checks.atLeast("retries", retries, 0);
            return this;
        }

        /** Argument positions (0-based) whose values key {@code consistent-hash}. */
        /** Subsetting of large provider lists ({@link Subsetting}); {@link Subsetting#off()} to call every provider. */
        public Builder subsetting(Subsetting subsetting) {
            this.subsetting = Objects.requireNonNull(subsetting, "subsetting");
            return this;
        }

        public Builder hashArguments(int... positions) {
            if (positions.length == 0) {
                throw new IllegalArgumentException("hashArguments: none (expected: at least one position)");
            }
            for (int p : positions) {
                Checks.atLeast("hashArguments position", p, 0);
            }
            this.hashArguments = positions.clone();
            return this;
        }

        public Builder version(String version) {
            this.version = Checks.checkName("version", version);
            return this;
        }

        public Builder group(String group) {
            this.group = Checks.checkName("group", group);
            return this;
        }

        /**
         * Bounds each attempt of a call (the first, and each failover retry) to {@code timeout}, so
         * that a provider that does not answer leaves time for a retry to another; the call's own
         * deadline ({@link #timeout}) still ends all of them. Default: none, an attempt may take
         * what is left of the call's deadline (as gRPC's). Dubbo's {@code timeout} is this per-attempt
         * one: a Dubbo reference with timeout 1 s and 2 retries is {@code timeout(3s)} with
         * {@code attemptTimeout(1s)}. A timed-out attempt is retried only for {@code @Idempotent} methods.
         * It bounds the {@code failover} cluster's attempts of methods that are not hedged: a hedged
         * method's attempts share the call's deadline (the hedging delay decides when the next is
         * sent), and {@code failfast} and {@code failsafe} make one attempt, under the call's deadline.
         */
        public Builder attemptTimeout(Duration timeout) {
            this.attemptTimeout = Checks.checkPositive("attemptTimeout", timeout);
            return this;
        }

        /**
         * Deadline of every call of this reference, across all its attempts (failover retries and
         * hedges); default: the client's (3 s unless changed).
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Checks.checkPositive("timeout", timeout);
            return this;
        }

        /** Deadline of the calls of every method called {@code methodName} (all overloads). */
        public Builder methodTimeout(String methodName, Duration timeout) {
            methodTimeouts.put(
                    Objects.requireNonNull(methodName, "methodName"),
                    Checks.checkPositive("timeout of " + methodName, timeout));
            return this;
        }

        public Builder serializer(String serializer) {
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            return this;
        }

        public Builder compressor(String compressor) {
            this.compressor = Objects.requireNonNull(compressor, "compressor");
            return this;
        }

        /** A provider address, {@code host:port}. */
        public Builder address(String address) {
            addresses.add(Endpoint.parse(address));
            return this;
        }

        public Builder address(Endpoint address) {
            addresses.add(Objects.requireNonNull(address, "address"));
            return this;
        }

        public ReferenceOptions build() {
            return new ReferenceOptions(this);
        }
    }
}
