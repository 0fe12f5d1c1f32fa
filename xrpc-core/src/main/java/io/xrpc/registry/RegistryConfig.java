package io.xrpc.registry;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which registry, and its settings as strings: {@code scheme://address?name=value&...}, such as
 * {@code zookeeper://zk1:2181,zk2:2181?session-timeout=15s&root-path=/shop}. The scheme picks the
 * {@link RegistryProvider}; the address and the parameters mean what that provider says (the
 * ZooKeeper provider documents its own in {@code docs/REGISTRY.md}), so a new registry (Nacos,
 * etcd) needs nothing here. Two short forms stay for compatibility: a bare
 * {@code host:port[,host:port]} is a ZooKeeper ensemble, and {@code embedded} names the embedded
 * ZooKeeper. Immutable.
 */
public final class RegistryConfig {
    private final String scheme;
    private final String address;
    private final Map<String, String> parameters;

    private RegistryConfig(String scheme, String address, Map<String, String> parameters) {
        this.scheme = scheme;
        this.address = address;
        this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** A builder for {@code address}, whose {@code ?name=value} parameters it takes in too. */
    public static Builder builder(String address) {
        return new Builder(address);
    }

    /** Which {@link RegistryProvider} serves this registry, such as {@code zookeeper}. */
    public String scheme() {
        return scheme;
    }

    /** The part after {@code scheme://} and before {@code ?}: for ZooKeeper, its connect string. */
    public String address() {
        return address;
    }

    /** Every parameter, in the order given; names are the provider's. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** One parameter, or {@code null}. */
    public String parameter(String name) {
        return parameters.get(name);
    }

    @Override
    public String toString() {
        return scheme + "://" + address + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    public static final class Builder {
        private final String scheme;
        private final String address;
        private final Map<String, String> parameters = new LinkedHashMap<>();

        private Builder(String address) {
            Objects.requireNonNull(address, "address");
            String a = address.trim();
            if (a.isEmpty()) {
                throw new IllegalArgumentException("registry address: empty (expected: zookeeper://host:port,"
                        + " host:port or embedded)");
            }
            int q = a.indexOf('?');
            if (q >= 0) {
                for (String pair : a.substring(q + 1).split("&")) {
                    if (pair.isEmpty()) {
                        continue;
                    }
                    int eq = pair.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("registry address " + address + ": parameter '" + pair
                                + "' (expected: name=value)");
                    }
                    String name = decode(pair.substring(0, eq), address);
                    if (parameters.put(name, decode(pair.substring(eq + 1), address)) != null) {
                        throw new IllegalArgumentException("registry address " + address + ": parameter '" + name
                                + "' given twice");
                    }
                }
                a = a.substring(0, q);
            }
            int sep = a.indexOf("://");
            if (sep > 0) {
                this.scheme = a.substring(0, sep);
                this.address = a.substring(sep + 3);
            } else if (a.equals("embedded")) {
                this.scheme = "embedded";
                this.address = "";
            } else {
                this.scheme = "zookeeper"; // the documented short form: a bare ensemble
                this.address = a;
            }
        }

        /** Percent-decoded ({@code %2F} is {@code /}); a {@code +} stays a plus. */
        private static String decode(String s, String address) {
            try {
                return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("registry address " + address + ": '" + s + "' is not"
                        + " percent-encoded correctly (" + e.getMessage() + ")");
            }
        }

        /** Sets one parameter; it replaces one of the same name from the address. */
        public Builder parameter(String name, String value) {
            parameters.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public RegistryConfig build() {
            return new RegistryConfig(scheme, address, parameters);
        }
    }
}
