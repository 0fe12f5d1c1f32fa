package io.xrpc.registry;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which registry, and its settings as strings: {@code scheme://address?name=value&...}, such as
 * {@code zookeeper://zk1:2181,zk2:2181?session-timeout=15s&root-path=/shop}. The scheme picks the
 * {@link RegistryProvider}; the address and the parameters mean what that provider says (the
 * ZooKeeper provider documents its own in {@code docs/REGISTRY.md}), so a new registry (Nacos,
 * etcd) needs nothing here. Two short forms stay for compatibility: a bare
 * {@code host:port[,host:port]} is a ZooKeeper ensemble, and {@code embedded} names the embedded
 * ZooKeeper. Credentials may come in the address ({@code zookeeper://user:password@zk1:2181},
 * percent-encoded) or through {@link Builder#credentials}; the password is never printed: it is
 * masked in {@link #toString()} and in every error this class throws. Immutable.
 */
public final class RegistryConfig {
    // The parameters of the ZooKeeper registry that the starter sets from xrpc.registry.*: named
    // here so that the starter needs nothing of that module but its presence.
    /** How long a provider may be silent before its registration disappears (ZooKeeper's session). */
    public static final String SESSION_TIMEOUT = "session-timeout";
    /** How long start-up waits for the registry. */
    public static final String CONNECT_TIMEOUT = "connect-timeout";
    /** The node everything lives under. */
    public static final String ROOT_PATH = "root-path";
    /** How long a consumer keeps its last providers when the registry suddenly lists none. */
    public static final String EMPTY_LIST_GRACE = "empty-list-grace";
    /** Share of a service's providers that may vanish at once before a consumer holds on to them (ZooKeeper). */
    public static final String SHRINK_GUARD = "shrink-guard";
    /** Window of {@link #SHRINK_GUARD}, and how long the registry must then be stable (ZooKeeper). */
    public static final String SHRINK_GUARD_WINDOW = "shrink-guard-window";
    /** The ACL of every node XRpc creates. */
    public static final String ACL = "acl";
    /** How providers register and consumers read: {@code instance}, {@code interface} or {@code all} (ZooKeeper). */
    public static final String MODE = "mode";
    /** The application a provider's instances register under (ZooKeeper, per-instance mode). */
    public static final String APPLICATION = "application";
    /** The port embedded registries meet on ({@code embedded} only). */
    public static final String EMBEDDED_PORT = "port";

    private final String scheme;
    private final String address;
    private final Map<String, String> parameters;
    private final String username;
    private final String password;

    private RegistryConfig(
            String scheme, String address, Map<String, String> parameters, String username, String password) {
        this.scheme = scheme;
        this.address = address;
        this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        this.username = username;
        this.password = password;
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

    /**
     * The user the registry client authenticates as (for ZooKeeper, a {@code digest} identity),
     * or {@code null} when it presents none.
     */
    public String username() {
        return username;
    }

    /** The password of {@link #username()}, or {@code null}; never printed by this class. */
    public String password() {
        return password;
    }

    /**
     * The address as given, with the password masked, and the value of every parameter whose name
     * says it is secret ({@code password}, {@code secret}): safe to log.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(scheme).append("://");
        if (username != null) {
            sb.append(username).append(":****@");
        }
        sb.append(address);
        if (!parameters.isEmpty()) {
            Map<String, String> shown = new LinkedHashMap<>();
            parameters.forEach((k, v) -> shown.put(k, isSecret(k) ? "****" : v));
            sb.append('?').append(shown);
        }
        return sb.toString();
    }

    /** Whether a parameter's value is a secret, by its name (a trust store's password, say). */
    static boolean isSecret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.contains("password") || n.contains("secret");
    }

    /**
     * {@code address} (a registry address as a user gives it) with its password and the values of
     * secret parameters masked, as tools print or write an address: {@code zookeeper://u:****@h:2181}.
     * Anything else comes back as it is.
     */
    public static String mask(String address) {
        return address == null ? null : masked(address);
    }

    /**
     * {@code address} with everything between {@code ://} and its last {@code @} masked but the
     * user, and the values of secret parameters, for messages about an address that did not parse.
     */
    static String masked(String address) {
        int sep = address.indexOf("://");
        int start = sep < 0 ? 0 : sep + 3;
        int at = address.lastIndexOf('@');
        String s = address;
        if (at >= start) {
            int colon = address.indexOf(':', start);
            String user = colon < 0 || colon > at ? address.substring(start, at) : address.substring(start, colon);
            s = address.substring(0, start) + user + ":****" + address.substring(at);
        }
        return s.replaceAll("(?i)([^?&=]*(password|secret)[^?&=]*=)[^&]*", "$1****");
    }

    public static final class Builder {
        private final String scheme;
        private final String address;
        private final Map<String, String> parameters = new LinkedHashMap<>();
        private String username;
        private String password;

        private Builder(String given) {
            Objects.requireNonNull(given, "address");
            String address = masked(given.trim()); // what messages quote
            String a = given.trim();
            if (a.isEmpty()) {
                throw new IllegalArgumentException(
                        "registry address: empty (expected: zookeeper://host:port," + " host:port or embedded)");
            }
            int q = a.indexOf('?');
            if (q >= 0) {
                for (String pair : a.substring(q + 1).split("&")) {
                    if (pair.isEmpty()) {
                        continue;
                    }
                    int eq = pair.indexOf('=');
                    if (eq <= 0) {
                        // The pair is not quoted: a '?' in an unencoded password puts part of it here.
                        throw new IllegalArgumentException("registry address " + address + ": a parameter is not"
                                + " name=value (percent-encode ? & @ : / in a password)");
                    }
                    String name = decode(pair.substring(0, eq), address);
                    if (parameters.put(name, decode(pair.substring(eq + 1), address)) != null) {
                        throw new IllegalArgumentException(
                                "registry address " + address + ": parameter '" + name + "' given twice");
                    }
                }
                a = a.substring(0, q);
            }
            int sep = a.indexOf("://");
            int at = a.lastIndexOf('@');
            if (at >= 0) {
                // user:password@ before the hosts; the password may itself hold ':' or '@' when encoded
                String userInfo = a.substring(sep > 0 ? sep + 3 : 0, at);
                int colon = userInfo.indexOf(':');
                if (colon <= 0 || colon == userInfo.length() - 1) {
                    throw new IllegalArgumentException("registry address " + address + ": credentials must be"
                            + " user:password@ before the hosts");
                }
                this.username = decode(userInfo.substring(0, colon), address);
                this.password = decode(userInfo.substring(colon + 1), address); // its errors quote no part
                a = (sep > 0 ? a.substring(0, sep + 3) : "") + a.substring(at + 1);
            }
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
                // Not quoted: it may be a password's.
                throw new IllegalArgumentException("registry address " + address + ": a part of it is not"
                        + " percent-encoded correctly (" + e.getMessage() + ")");
            }
        }

        /**
         * The user and password the registry client authenticates with; they replace any the
         * address carries. {@code null} for both presents none.
         */
        public Builder credentials(String username, String password) {
            if ((username == null) != (password == null) || username != null && username.isEmpty()) {
                throw new IllegalArgumentException("registry credentials: a user name and a password, or neither");
            }
            if (password != null && password.isBlank()) {
                throw new IllegalArgumentException("registry credentials: the password of " + username + " is empty");
            }
            this.username = username;
            this.password = password;
            return this;
        }

        /** Sets one parameter; it replaces one of the same name from the address. */
        public Builder parameter(String name, String value) {
            parameters.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public RegistryConfig build() {
            return new RegistryConfig(scheme, address, parameters, username, password);
        }
    }
}
