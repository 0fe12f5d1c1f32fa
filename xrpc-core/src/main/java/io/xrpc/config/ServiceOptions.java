package io.xrpc.config;

import io.xrpc.internal.Checks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one service is exported: its version and group, which together with the interface name
 * form its {@link io.xrpc.common.ServiceKey}, and what its registration says (weight, accepted
 * serializers, metadata). Immutable; build with {@link #builder()}.
 */
public final class ServiceOptions {
    private static final ServiceOptions DEFAULTS = builder().build();

    private final String version;
    private final String group;
    private final int weight;
    private final List<String> serializers;
    private final Map<String, String> metadata;
    private final boolean nonBlocking;

    private ServiceOptions(Builder b) {
        this.nonBlocking = b.nonBlocking;
        this.version = b.version;
        this.group = b.group;
        this.weight = b.weight;
        this.serializers = List.copyOf(b.serializers);
        this.metadata = Map.copyOf(b.metadata);
    }

    public static ServiceOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Version of the service: callers reach it only by asking for the same one; default empty. */
    public String version() {
        return version;
    }

    /** Group of the service, beside its version in its key; default empty. */
    public String group() {
        return group;
    }

    /** Share of calls relative to other providers of the service, 1-10000: default 100. */
    public int weight() {
        return weight;
    }

    /** Serializers consumers should use for this service, as registered; empty means any. */
    public List<String> serializers() {
        return serializers;
    }

    /** Whether every method runs on the event loop, as if marked {@link io.xrpc.common.NonBlocking}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    /** Extra string pairs published with the registration. */
    public Map<String, String> metadata() {
        return metadata;
    }

    public static final class Builder {
        private String version = "";
        private String group = "";
        private int weight = 100;
        private final List<String> serializers = new ArrayList<>();
        private final Map<String, String> metadata = new LinkedHashMap<>();
        private boolean nonBlocking;

        private Builder() {}

        public Builder weight(int weight) {
            if (weight < 1 || weight > 10_000) {
                throw new IllegalArgumentException("weight: " + weight + " (expected: 1-10000)");
            }
            this.weight = weight;
            return this;
        }

        /** Limits consumers to these serializers (by name); by default any. */
        /**
         * Runs every method of the service on the connection's event loop instead of a call
         * thread: only for implementations that never block (see {@link io.xrpc.common.NonBlocking},
         * which marks single methods). Default false.
         */
        public Builder nonBlocking(boolean nonBlocking) {
            this.nonBlocking = nonBlocking;
            return this;
        }

        public Builder serializers(String... names) {
            serializers.addAll(List.of(names));
            return this;
        }

        public Builder metadata(String key, String value) {
            metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
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

        public ServiceOptions build() {
            return new ServiceOptions(this);
        }
    }
}
