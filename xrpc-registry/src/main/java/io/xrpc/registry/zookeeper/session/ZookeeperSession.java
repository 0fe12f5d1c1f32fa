package io.xrpc.registry.zookeeper.session;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.security.auth.login.Configuration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.Environment;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ZooKeeper session through Curator, and everything that hangs on it: connecting as a digest
 * user, through a SASL login or anonymously ({@link Trust}), the connection's state and the
 * session's id, the single worker thread the registry's background work runs on, and telling the
 * publishers and watchers ({@link Listener}) when the connection comes back or the session is lost.
 *
 * <p>Connects in its constructor and waits for the first session, failing after the connect
 * timeout, or at once when the ensemble ends the session at its first request (one that requires
 * authentication the client does not give).
 */
public final class ZookeeperSession implements AutoCloseable {
    /**
     * The logger the registry's parts write to: the facade's name, as when they were one class, so
     * that a level an operator set for {@code io.xrpc.registry.zookeeper.ZookeeperRegistry} still holds.
     */
    public static final String LOGGER = "io.xrpc.registry.zookeeper.ZookeeperRegistry";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    private static final int MAX_RETRY_SLEEP_MS = 5000;

    /**
     * What a session is opened with.
     *
     * @param username the digest user this client authenticates as, or {@code null} for none (a SASL
     *                 login through the JAAS section {@code Client} is used when one is configured)
     * @param password the digest user's password; never logged
     */
    public record Settings(
            String connectString,
            String username,
            String password,
            Duration sessionTimeout,
            Duration connectTimeout,
            Duration retryBaseSleep,
            int maxRetries,
            Map<String, String> clientProperties,
            String acl,
            String trust) {}

    /** Told of the connection's changes, on Curator's event thread: quick, never blocking. */
    public interface Listener {
        /**
         * The connection came back.
         *
         * @param watchesKept the same session, which kept this client's ephemeral nodes and whose
         *                    watches ZooKeeper's client set again; false for a new session (after an
         *                    expiry), or when the client is told not to set watches again
         * @param otherServer a new session on a server that may never have seen the old one (an
         *                    embedded ZooKeeper taken over): its nodes' version counters start again
         */
        default void reconnected(boolean watchesKept, boolean otherServer) {}

        /** The session is lost: expired, or about to be; the next connection may be another server. */
        default void lost() {}
    }

    private final String connectString;
    private final CuratorFramework client;
    private final Trust trust;
    /** The registry's own thread: registrations kept alive, lists checked and released, timers. */
    private final ScheduledExecutorService worker;
    /** Whether ZooKeeper's client sets its watches again on a reconnect (unless told not to). */
    private final boolean autoWatchReset;

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    /** Curator's last reported connection state; CONNECTED once the constructor returns. */
    private volatile ConnectionState lastState = ConnectionState.CONNECTED;
    /** When (nanoTime) the connection last came back; meaningful once {@link #reconnectedOnce}. */
    private volatile long reconnectedAt;

    private volatile boolean reconnectedOnce;
    /**
     * The session id, read when a connection is made: describe() must not ask Curator for the
     * ZooKeeper handle, which would consume a pending background error or reset the connection.
     */
    private volatile long sessionId;
    /** The last session connected, kept across its loss, to tell a new session from the old one. */
    private volatile long lastSession;

    /** Connects and waits for the first session; fails naming why it could not. */
    public ZookeeperSession(Settings s) {
        this.connectString = s.connectString();
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "xrpc-registry-" + connectString);
            t.setDaemon(true);
            return t;
        });
        // Curator warns when its connection timeout exceeds the session timeout; the start-up
        // wait below is what the configured connect timeout governs.
        int sessionMillis = (int) s.sessionTimeout().toMillis();
        ZKClientConfig zkConfig = new ZKClientConfig();
        s.clientProperties().forEach(zkConfig::setProperty);
        // As the client reads it: from these properties or the JVM's -Dzookeeper.disableAutoWatchReset.
        this.autoWatchReset = !zkConfig.getBoolean(ZKClientConfig.DISABLE_AUTO_WATCH_RESET);
        this.trust = new Trust(s.acl(), s.trust(), s.username(), s.password(), saslLoginConfigured(zkConfig));
        List<ACL> acl = trust.acl();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                // Keep to the configured hosts: Curator would otherwise replace them with the
                // addresses the ensemble lists for itself, which bypasses a DNS name or a proxy.
                .ensembleTracker(false)
                .sessionTimeoutMs(sessionMillis)
                .connectionTimeoutMs((int) Math.min(s.connectTimeout().toMillis(), sessionMillis))
                .retryPolicy(new ExponentialBackoffRetry(
                        (int) s.retryBaseSleep().toMillis(), s.maxRetries(), MAX_RETRY_SLEEP_MS))
                .zkClientConfig(zkConfig)
                .aclProvider(new ACLProvider() {
                    @Override
                    public List<ACL> getDefaultAcl() {
                        return acl;
                    }

                    @Override
                    public List<ACL> getAclForPath(String path) {
                        return acl;
                    }
                });
        if (s.username() != null) {
            builder.authorization("digest", (s.username() + ":" + s.password()).getBytes(StandardCharsets.UTF_8));
        }
        this.client = builder.build();
        client.getConnectionStateListenable().addListener((c, state) -> changed(state));
        client.start();
        awaitFirstSession(s.connectTimeout());
        if (!trust.secured() && !onlyLoopback(connectString)) {
            log.warn(
                    "ZooKeeper {} is used as {} with the ACL {}: anyone who can reach it can add a provider that"
                            + " consumers will call (give the registry user:password@ and see docs/REGISTRY.md)",
                    connectString,
                    trust.identity(),
                    ZookeeperAcl.describe(acl));
        }
    }

    private void awaitFirstSession(Duration connectTimeout) {
        boolean connected;
        try {
            connected = client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            throw failedStart(
                    "cannot connect to ZooKeeper at " + connectString + " within " + connectTimeout.toMillis() + " ms",
                    null);
        }
        try {
            // One request on the raw handle, not through Curator's retries: an ensemble that
            // requires authentication accepts the connection and ends the session at the first request.
            client.getZookeeperClient().getZooKeeper().exists("/", false);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw failedStart(
                    "ZooKeeper at " + connectString + " ended the session of " + trust.identity()
                            + " at its first request (" + e.getMessage() + "): does the ensemble require authentication"
                            + " (user:password@ in the registry address)?",
                    e);
        }
        if (sessionId == 0) {
            sessionId = currentSessionId(); // before the listener hears of the first connection
        }
    }

    /** Curator's event thread: the state, the session, then the listeners, in the order they were added. */
    private void changed(ConnectionState state) {
        if (state == ConnectionState.RECONNECTED) {
            // Before lastState: no moment in which the connection is back and departures believed.
            reconnectedAt = System.nanoTime();
            reconnectedOnce = true;
        }
        lastState = state;
        if (state.isConnected()) {
            sessionId = currentSessionId();
        } else if (state == ConnectionState.LOST) {
            sessionId = 0; // expired, or soon: the next connection reports the session it gets
            listeners.forEach(Listener::lost);
        }
        if (state == ConnectionState.RECONNECTED) {
            long session = sessionId;
            boolean watchesKept = session != 0 && session == lastSession && autoWatchReset;
            boolean otherServer = session != 0 && lastSession != 0 && session != lastSession;
            for (Listener l : listeners) {
                l.reconnected(watchesKept, otherServer);
            }
        }
        if (state.isConnected() && sessionId != 0) {
            lastSession = sessionId;
        }
        if (state == ConnectionState.LOST || state == ConnectionState.SUSPENDED) {
            log.warn("ZooKeeper {} {}: consumers keep their last known providers", connectString, state);
        }
    }

    /** Adds a listener; they hear of changes in the order they were added. */
    public void listen(Listener listener) {
        listeners.add(listener);
    }

    /** Closes what the constructor started, and says why it could not finish. */
    private IllegalStateException failedStart(String why, Exception cause) {
        client.close();
        worker.shutdownNow();
        return new IllegalStateException(why, cause);
    }

    /** Whether ZooKeeper's client will log in with SASL: enabled, and the JAAS configuration has its section. */
    private static boolean saslLoginConfigured(ZKClientConfig zkConfig) {
        if (!zkConfig.isSaslClientEnabled() || System.getProperty(Environment.JAAS_CONF_KEY) == null) {
            return false;
        }
        try {
            String section = zkConfig.getProperty(
                    ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, ZKClientConfig.LOGIN_CONTEXT_NAME_KEY_DEFAULT);
            return Configuration.getConfiguration().getAppConfigurationEntry(section) != null;
        } catch (RuntimeException e) {
            return false; // an unreadable JAAS file: ZooKeeper's client says why when it connects
        }
    }

    private static boolean onlyLoopback(String connectString) {
        for (String hostPort : connectString.split(",")) {
            String h = hostPort.trim();
            int colon = h.lastIndexOf(':');
            String host = colon > 0 && !h.endsWith("]") ? h.substring(0, colon) : h;
            if (!(host.startsWith("127.") || host.equals("localhost") || host.equals("[::1]") || host.equals("::1"))) {
                return false;
            }
        }
        return true;
    }

    private long currentSessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0; // closed, or between sessions
        }
    }

    /** The ZooKeeper connect string in use. */
    public String connectString() {
        return connectString;
    }

    /** The Curator client. */
    public CuratorFramework curator() {
        return client;
    }

    /** Who this client is and whom it believes. */
    public Trust trust() {
        return trust;
    }

    /** The registry's single background thread. */
    public ScheduledExecutorService worker() {
        return worker;
    }

    /** Whether the client is connected now. */
    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** Curator's last reported connection state. */
    public ConnectionState state() {
        return lastState;
    }

    /** The session id as last read (0 between sessions). */
    public long sessionId() {
        return sessionId;
    }

    /**
     * Whether a list that shrinks now may be the registry's trouble rather than the providers':
     * while this client is disconnected, and for {@code windowNanos} after it came back (sessions of
     * providers that expired in the same outage are still being replaced).
     */
    public boolean disturbed(long windowNanos) {
        return !lastState.isConnected() || reconnectedOnce && System.nanoTime() - (reconnectedAt + windowNanos) < 0;
    }

    /** Ends the session (which removes every ephemeral node it made) and stops the worker. */
    @Override
    public void close() {
        worker.shutdownNow();
        client.close();
    }
}
