package io.xrpc.registry.zookeeper;

import io.xrpc.internal.Checks;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The ZooKeeper registry's settings, read from a {@link RegistryConfig}'s parameters (the
 * {@code ?name=value} of {@code zookeeper://...} and {@code embedded}, or what the starter maps
 * from {@code xrpc.registry.*}). Durations are written {@code 500ms}, {@code 30s}, {@code 2m} or
 * ISO-8601 ({@code PT30S}). An unknown name fails, listing the known ones.
 *
 * @param sessionTimeout how long a provider may be silent before its registration disappears
 * @param connectTimeout how long start-up waits for ZooKeeper (its client gets the shorter of this
 *                       and the session timeout)
 * @param rootPath       the node everything lives under
 * @param retryBaseSleep first sleep of the exponential retry of ZooKeeper operations
 * @param maxRetries     retries of one operation
 * @param emptyListGrace how long a consumer keeps its last providers when the registry suddenly
 *                       lists none (a provider replacing its node after a session expiry
 *                       deletes and creates it); 0 believes every list at once
 * @param shrinkGuard    the share of a service's providers that may vanish from the registry within
 *                       {@code shrinkGuardWindow} before a consumer holds on to the ones that
 *                       vanished (a ZooKeeper outage expiring many providers' sessions at once, not
 *                       a fleet stopping): {@code 0.5} by default, 0 turns the guard off. Departures
 *                       are held too while the consumer's own connection to ZooKeeper is down and for
 *                       a window after it came back
 * @param shrinkGuardWindow the window of the guard: how long departures are counted together, how
 *                       long after its reconnection a consumer holds them, and how long the registry
 *                       must then list no further departure before the held providers are let go
 * @param acl            the ACL of every node XRpc creates: {@code auto} (creator-all and read for
 *                       everyone when the client authenticates, else open, with a warning),
 *                       {@code open} ({@code world:anyone:cdrwa}), or entries as ZooKeeper's
 *                       {@code setAcl} takes them, such as {@code auth::cdrwa,world:anyone:r}
 * @param mode           how providers register and consumers read (see {@link Mode}): one node
 *                       per instance by default
 * @param application    the application a provider's instances register under in the per-instance
 *                       layout ({@code default} unless named): consumers read the instances of
 *                       the applications that serve their interfaces, so name it in a large fleet
 * @param clientProperties ZooKeeper client settings passed through as given: every parameter whose
 *                       name starts with {@code zookeeper.}, such as {@code zookeeper.client.secure}
 *                       and {@code zookeeper.ssl.trustStore.location} for TLS to the ensemble
 * @param trust          whom a consumer believes providers from, as ZooKeeper ids
 *                       ({@code sasl:name}, {@code sasl:*}, {@code x509:CN=...}, {@code ip:10.1.0.0/16};
 *                       not digest ids, whose hash ZooKeeper hides from a read-only session),
 *                       comma-separated: a provider node counts only where nobody else may have
 *                       created it. Empty (the default): the identities of this client's own ACL
 *                       when it has credentials, else anyone (with a warning where the tree is
 *                       written by someone in particular)
 */
public record ZookeeperSettings(
        Duration sessionTimeout,
        Duration connectTimeout,
        String rootPath,
        Duration retryBaseSleep,
        int maxRetries,
        Duration emptyListGrace,
        double shrinkGuard,
        Duration shrinkGuardWindow,
        String acl,
        Mode mode,
        String application,
        Map<String, String> clientProperties,
        String trust) {

    public static final String SESSION_TIMEOUT = RegistryConfig.SESSION_TIMEOUT;
    public static final String CONNECT_TIMEOUT = RegistryConfig.CONNECT_TIMEOUT;
    public static final String ROOT_PATH = RegistryConfig.ROOT_PATH;
    public static final String RETRY_BASE_SLEEP = "retry-base-sleep";
    public static final String MAX_RETRIES = "max-retries";
    public static final String EMPTY_LIST_GRACE = RegistryConfig.EMPTY_LIST_GRACE;
    public static final String SHRINK_GUARD = RegistryConfig.SHRINK_GUARD;
    public static final String SHRINK_GUARD_WINDOW = RegistryConfig.SHRINK_GUARD_WINDOW;
    public static final String ACL = RegistryConfig.ACL;
    public static final String MODE = RegistryConfig.MODE;
    public static final String APPLICATION = RegistryConfig.APPLICATION;
    /** Whom a consumer believes providers from ({@link #trust()}). */
    public static final String TRUST = ZookeeperAcl.TRUST;
    /** The application of instances whose provider names none. */
    public static final String DEFAULT_APPLICATION = "default";
    /** Every parameter whose name starts with this is a ZooKeeper client property. */
    public static final String CLIENT_PROPERTY_PREFIX = "zookeeper.";

    private static final List<String> NAMES = List.of(
            SESSION_TIMEOUT,
            CONNECT_TIMEOUT,
            ROOT_PATH,
            RETRY_BASE_SLEEP,
            MAX_RETRIES,
            EMPTY_LIST_GRACE,
            SHRINK_GUARD,
            SHRINK_GUARD_WINDOW,
            ACL,
            MODE,
            APPLICATION,
            TRUST,
            CLIENT_PROPERTY_PREFIX + "*");

    private static final ZookeeperSettings DEFAULTS = new ZookeeperSettings(
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            "/xrpc",
            Duration.ofMillis(500),
            10,
            Duration.ofSeconds(1),
            0.5,
            Duration.ofSeconds(30),
            ZookeeperAcl.AUTO,
            Mode.INSTANCE,
            DEFAULT_APPLICATION,
            Map.of(),
            "");

    public ZookeeperSettings {
        Checks.checkPositive(SESSION_TIMEOUT, sessionTimeout);
        Checks.checkPositive(CONNECT_TIMEOUT, connectTimeout);
        Checks.checkPositive(RETRY_BASE_SLEEP, retryBaseSleep);
        Checks.notNegativeIntMillis(EMPTY_LIST_GRACE, emptyListGrace);
        Checks.atLeast(MAX_RETRIES, maxRetries, 0);
        if (!(shrinkGuard >= 0 && shrinkGuard <= 1)) {
            throw new IllegalArgumentException(
                    SHRINK_GUARD + ": " + shrinkGuard + " (expected: 0 to 1, 0 turns it off)");
        }
        Checks.checkPositive(SHRINK_GUARD_WINDOW, shrinkGuardWindow);
        Objects.requireNonNull(rootPath, ROOT_PATH);
        if (!rootPath.startsWith("/") || rootPath.length() < 2 || rootPath.endsWith("/")) {
            throw new IllegalArgumentException(ROOT_PATH + ": '" + rootPath + "' (expected: /name, no trailing /)");
        }
        ZookeeperAcl.check(Objects.requireNonNull(acl, ACL));
        Objects.requireNonNull(mode, MODE);
        Objects.requireNonNull(application, APPLICATION);
        if (!NodeCodec.isApplicationName(application)) {
            throw new IllegalArgumentException(APPLICATION + ": '" + application
                    + "' (expected: 1-100 letters, digits, '.', '_' or '-', not starting with '.')");
        }
        clientProperties = Map.copyOf(clientProperties);
        ZookeeperAcl.trust(Objects.requireNonNull(trust, TRUST)); // fails naming what is wrong
    }

    /** Every setting at its default. */
    public static ZookeeperSettings defaults() {
        return DEFAULTS;
    }

    /** The settings {@code config}'s parameters give, the defaults for the rest. */
    public static ZookeeperSettings of(RegistryConfig config) {
        return of(config, List.of());
    }

    /** As {@link #of(RegistryConfig)}, where {@code alsoKnown} are parameters of the caller's own. */
    static ZookeeperSettings of(RegistryConfig config, List<String> alsoKnown) {
        Map<String, String> p = config.parameters();
        Map<String, String> client = new LinkedHashMap<>();
        for (String name : p.keySet()) {
            if (name.startsWith(CLIENT_PROPERTY_PREFIX) && name.length() > CLIENT_PROPERTY_PREFIX.length()) {
                client.put(name, p.get(name));
            } else if (!NAMES.contains(name) && !alsoKnown.contains(name)) {
                List<String> known = new ArrayList<>(NAMES);
                known.addAll(alsoKnown);
                throw new IllegalArgumentException(
                        "registry " + config + ": unknown parameter '" + name + "' (expected one of " + known + ")");
            }
        }
        ZookeeperSettings d = DEFAULTS;
        return new ZookeeperSettings(
                duration(p, SESSION_TIMEOUT, d.sessionTimeout),
                duration(p, CONNECT_TIMEOUT, d.connectTimeout),
                p.getOrDefault(ROOT_PATH, d.rootPath),
                duration(p, RETRY_BASE_SLEEP, d.retryBaseSleep),
                integer(p, MAX_RETRIES, d.maxRetries),
                duration(p, EMPTY_LIST_GRACE, d.emptyListGrace),
                fraction(p, SHRINK_GUARD, d.shrinkGuard),
                duration(p, SHRINK_GUARD_WINDOW, d.shrinkGuardWindow),
                p.getOrDefault(ACL, d.acl).trim(),
                Mode.of(p.get(MODE), d.mode),
                p.getOrDefault(APPLICATION, d.application).trim(),
                client,
                p.getOrDefault(TRUST, d.trust).trim());
    }

    /** These settings with the session timeout {@code d}, and so on: for code that builds them. */
    public ZookeeperSettings withSessionTimeout(Duration d) {
        return new ZookeeperSettings(
                d,
                connectTimeout,
                rootPath,
                retryBaseSleep,
                maxRetries,
                emptyListGrace,
                shrinkGuard,
                shrinkGuardWindow,
                acl,
                mode,
                application,
                clientProperties,
                trust);
    }

    public ZookeeperSettings withConnectTimeout(Duration d) {
        return new ZookeeperSettings(
                sessionTimeout,
                d,
                rootPath,
                retryBaseSleep,
                maxRetries,
                emptyListGrace,
                shrinkGuard,
                shrinkGuardWindow,
                acl,
                mode,
                application,
                clientProperties,
                trust);
    }

    public ZookeeperSettings withEmptyListGrace(Duration d) {
        return new ZookeeperSettings(
                sessionTimeout,
                connectTimeout,
                rootPath,
                retryBaseSleep,
                maxRetries,
                d,
                shrinkGuard,
                shrinkGuardWindow,
                acl,
                mode,
                application,
                clientProperties,
                trust);
    }

    public ZookeeperSettings withRetry(Duration baseSleep, int retries) {
        return new ZookeeperSettings(
                sessionTimeout,
                connectTimeout,
                rootPath,
                baseSleep,
                retries,
                emptyListGrace,
                shrinkGuard,
                shrinkGuardWindow,
                acl,
                mode,
                application,
                clientProperties,
                trust);
    }

    /** These settings with the shrink guard {@code fraction} (0 turns it off) over {@code window}. */
    public ZookeeperSettings withShrinkGuard(double fraction, Duration window) {
        return new ZookeeperSettings(
                sessionTimeout,
                connectTimeout,
                rootPath,
                retryBaseSleep,
                maxRetries,
                emptyListGrace,
                fraction,
                window,
                acl,
                mode,
                application,
                clientProperties,
                trust);
    }

    /** These settings with the layout {@code m} and the application {@code app}. */
    public ZookeeperSettings withMode(Mode m, String app) {
        return new ZookeeperSettings(
                sessionTimeout,
                connectTimeout,
                rootPath,
                retryBaseSleep,
                maxRetries,
                emptyListGrace,
                shrinkGuard,
                shrinkGuardWindow,
                acl,
                m,
                app,
                clientProperties,
                trust);
    }

    /**
     * How providers register and consumers read. Per instance is the default: one node per provider
     * process whatever it serves, which a consumer follows with one watch per application and
     * applies change by change; per service is the layout of XRpc 0.1, kept for fleets that move
     * over; {@code all} writes both and reads both, for the move (docs/REGISTRY.md).
     */
    public enum Mode {
        /** One node per instance, services by revision: {@code {root}/apps/{app}/instances/{host:port}@{revision}}. */
        INSTANCE,
        /** One node per service and instance: {@code {root}/{interface}/{group}/{version}/providers/{host:port}}. */
        INTERFACE,
        /** Providers write both layouts; consumers read both and take the union. */
        ALL;

        static Mode of(String v, Mode fallback) {
            if (v == null) {
                return fallback;
            }
            for (Mode m : values()) {
                if (m.name().equalsIgnoreCase(v.trim())) {
                    return m;
                }
            }
            throw new IllegalArgumentException(MODE + ": '" + v + "' (expected: instance, interface or all)");
        }

        boolean instances() {
            return this != INTERFACE;
        }

        boolean services() {
            return this != INSTANCE;
        }
    }

    private static double fraction(Map<String, String> p, String name, double fallback) {
        String v = p.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + v + "' (expected: a fraction such as 0.5)");
        }
    }

    private static int integer(Map<String, String> p, String name, int fallback) {
        String v = p.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + v + "' (expected: a whole number)");
        }
    }

    /** {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO-8601. */
    static Duration duration(Map<String, String> p, String name, Duration fallback) {
        String v = p.get(name);
        if (v == null) {
            return fallback;
        }
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("p")) {
                return Duration.parse(s.toUpperCase(Locale.ROOT));
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            long n = Long.parseLong(s.substring(0, s.length() - 1));
            switch (s.charAt(s.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                default:
                    break;
            }
        } catch (NumberFormatException
                | DateTimeParseException
                | StringIndexOutOfBoundsException
                | ArithmeticException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + ": '" + v + "' (expected: a duration such as 500ms, 30s or 2m)");
    }
}
