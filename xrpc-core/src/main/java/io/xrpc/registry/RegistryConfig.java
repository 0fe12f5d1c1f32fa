package io.xrpc.registry;

import io.xrpc.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the registry is and how to talk to it. The address is {@code scheme://hosts}, such as
 * {@code zookeeper://zk1:2181,zk2:2181,zk3:2181}; a bare {@code host:port[,host:port]} means
 * ZooKeeper, and {@code embedded} starts an in-process ZooKeeper for development. Immutable.
 */
public final class RegistryConfig {
    private final String scheme;
    private final String hosts;
    private final Duration sessionTimeout;
    private final Duration connectTimeout;
    private final String rootPath;
    private final Duration retryBaseSleep;
    private final int maxRetries;
    private final Duration emptyListGrace;

    private RegistryConfig(Builder b) {
        String a = b.address.trim();
        int sep = a.indexOf("://");
        if (sep > 0) {
            this.scheme = a.substring(0, sep);
            this.hosts = a.substring(sep + 3);
        } else if (a.equals("embedded")) {
            this.scheme = "embedded";
            this.hosts = "";
        } else {
            this.scheme = "zookeeper";
            this.hosts = a;
        }
        this.sessionTimeout = b.sessionTimeout;
        this.connectTimeout = b.connectTimeout;
        this.emptyListGrace = b.emptyListGrace;
        this.rootPath = b.rootPath;
        this.retryBaseSleep = b.retryBaseSleep;
        this.maxRetries = b.maxRetries;
    }

    public static Builder builder(String address) {
        return new Builder(address);
    }

    public String scheme() {
        return scheme;
    }

    /** The part after {@code scheme://}: for ZooKeeper, its connect string. */
    public String hosts() {
        return hosts;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** Root node under which everything lives, default {@code /xrpc}. */
    public String rootPath() {
        return rootPath;
    }

    public Duration retryBaseSleep() {
        return retryBaseSleep;
    }

    public int maxRetries() {
        return maxRetries;
    }

    /** How long a consumer keeps its last providers when the registry suddenly lists none. */
    public Duration emptyListGrace() {
        return emptyListGrace;
    }

    @Override
    public String toString() {
        return scheme + "://" + hosts + rootPath;
    }

    public static final class Builder {
        private final String address;
        private Duration sessionTimeout = Duration.ofSeconds(30);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private String rootPath = "/xrpc";
        private Duration retryBaseSleep = Duration.ofMillis(500);
        private int maxRetries = 10;
        private Duration emptyListGrace = Duration.ofSeconds(1);

        private Builder(String address) {
            Objects.requireNonNull(address, "address");
            if (address.isBlank()) {
                throw new IllegalArgumentException("registry address: empty (expected: zookeeper://host:port,"
                        + " host:port or embedded)");
            }
            this.address = address;
        }

        /** How long a provider may be silent before its registration disappears: default 30 s. */
        public Builder sessionTimeout(Duration d) {
            this.sessionTimeout = Checks.checkPositive("sessionTimeout", d);
            return this;
        }

        /**
         * How long start-up waits for the registry: default 10 s. ZooKeeper's client is given the
         * shorter of this and the session timeout as its own connection timeout, so a short
         * session (5 s, say) needs no matching connect timeout.
         */
        public Builder connectTimeout(Duration d) {
            this.connectTimeout = Checks.checkPositive("connectTimeout", d);
            return this;
        }

        /**
         * How long a consumer keeps its last non-empty provider list when the registry suddenly
         * lists none, before it believes it: default 1 s. A provider that replaces its node after
         * a session expiry deletes and creates it, and a consumer watching sees an empty moment
         * although the provider never went away; a provider that really left is gone 1 s later.
         * 0 believes every list at once.
         */
        public Builder emptyListGrace(Duration d) {
            this.emptyListGrace = Checks.notNegative("emptyListGrace", d);
            return this;
        }

        public Builder rootPath(String rootPath) {
            Objects.requireNonNull(rootPath, "rootPath");
            if (!rootPath.startsWith("/") || rootPath.length() < 2 || rootPath.endsWith("/")) {
                throw new IllegalArgumentException("rootPath: '" + rootPath + "' (expected: /name, no trailing /)");
            }
            this.rootPath = rootPath;
            return this;
        }

        /** Exponential backoff of ZooKeeper operation retries: first sleep and number of retries. */
        public Builder retry(Duration baseSleep, int maxRetries) {
            this.retryBaseSleep = Checks.checkPositive("retryBaseSleep", baseSleep);
            this.maxRetries = Checks.atLeast("maxRetries", maxRetries, 0);
            return this;
        }

        public RegistryConfig build() {
            return new RegistryConfig(this);
        }
    }
}
