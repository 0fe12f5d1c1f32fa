package io.xrpc.config;

import io.xrpc.internal.Checks;

/**
 * How one service is exported: its version and group, which together with the interface name
 * form its {@link io.xrpc.common.ServiceKey}. Immutable; build with {@link #builder()}.
 */
public final class ServiceOptions {
    private static final ServiceOptions DEFAULTS = builder().build();

    private final String version;
    private final String group;

    private ServiceOptions(Builder b) {
        this.version = b.version;
        this.group = b.group;
    }

    public static ServiceOptions defaults() {
        return DEFAULTS;
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

    public static final class Builder {
        private String version = "";
        private String group = "";

        private Builder() {
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
