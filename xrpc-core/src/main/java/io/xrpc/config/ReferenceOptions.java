package io.xrpc.config;

import io.xrpc.internal.Checks;

import io.xrpc.common.Endpoint;
import java.time.Duration;
import java.util.ArrayList;
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
    private final int[] hashArguments;

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
        this.hashArguments = b.hashArguments.clone();
    }

    public static Builder builder() {
        return new Builder();
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

    /** Load balancer name: {@code random} (default), {@code round-robin}, {@code least-active}, {@code consistent-hash}. */
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

    /** Argument positions that key {@code consistent-hash}: default the first. */
    public int[] hashArguments() {
        return hashArguments.clone();
    }

    public static final class Builder {
        private String version = "";
        private String group = "";
        private Duration timeout;
        private final Map<String, Duration> methodTimeouts = new HashMap<>();
        private String serializer;
        private String compressor;
        private final List<Endpoint> addresses = new ArrayList<>();
        private String loadBalancer = "random";
        private String cluster = "failover";
        private int retries = 2;
        private int[] hashArguments = {0};

        private Builder() {
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

        /** Deadline of every call of this reference; default: the client's (3 s unless changed). */
        public Builder timeout(Duration timeout) {
            this.timeout = Checks.checkPositive("timeout", timeout);
            return this;
        }

        /** Deadline of the calls of every method called {@code methodName} (all overloads). */
        public Builder methodTimeout(String methodName, Duration timeout) {
            methodTimeouts.put(Objects.requireNonNull(methodName, "methodName"),
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
