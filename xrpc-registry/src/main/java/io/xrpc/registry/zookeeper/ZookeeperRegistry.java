package io.xrpc.registry.zookeeper;

import io.xrpc.common.ServiceKey;
import io.xrpc.registry.Registry;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Service registry and discovery on ZooKeeper through Curator.
 *
 * <p>Providers are EPHEMERAL nodes, so a provider that dies without a word disappears when its
 * session times out. A registration is kept alive: after a session expiry it is created again,
 * a node left by this provider's previous session is replaced rather than silently kept (it would
 * vanish when that session's expiry is processed), and a node deleted by hand comes back.
 *
 * <p>Consumers watch with {@link CuratorCache} and keep the last list in memory: while ZooKeeper
 * is unreachable nothing changes for them, and calls go on to the providers they know.
 *
 * <p>Every node it creates gets the ACL of {@link ZookeeperSettings#acl()}: with credentials,
 * creator-all and read for everyone, so that only providers of the same identity may add a
 * provider; the nodes above the providers are then persistent, not containers, so that nobody can
 * take a path over after ZooKeeper removed it. A consumer with credentials believes the providers
 * under a {@code providers} node only when that node's ACL has never changed and lets nobody but
 * the identities of its own ACL add to it or change it: then it cannot hold a node written by
 * anyone else. A provider with credentials that finds its providers node otherwise (left by an
 * unauthenticated deployment, or made by someone else first) makes it anew, and closes the nodes
 * above it. Without credentials everything is open, and both sides say so once.
 */
public final class ZookeeperRegistry implements Registry {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperRegistry.class);
    private static final int MAX_RETRY_SLEEP_MS = 5000;
    /**
     * The fewest departures within the shrink guard's window that count as many: a small service
     * stopping its two providers one after the other is believed at once.
     */
    static final int MASS_DEPARTURE = 3;

    private final String connectString;
    private final long connectTimeoutMillis;
    private final String root;
    private final CuratorFramework client;
    private final Runnable onClose;
    private final ScheduledExecutorService worker;
    private final long emptyListGraceMillis;
    /** Share of a list that may vanish within the window before departures are held; 0: never held. */
    private final double shrinkGuard;
    private final long shrinkWindowNanos;
    /** Until when (nanoTime) departures are held after this client's connection came back. */
    private volatile long heldAfterReconnectUntil;
    private volatile boolean reconnectedOnce;
    /** Whether the current hold was logged: once per episode, not once per service. */
    private final java.util.concurrent.atomic.AtomicBoolean holdLogged = new java.util.concurrent.atomic.AtomicBoolean();
    /** Path to node data of everything this registry keeps registered. */
    private final Map<String, byte[]> registrations = new ConcurrentHashMap<>();
    private final Map<String, CuratorWatcher> watchers = new ConcurrentHashMap<>();
    /** Registrations not known to be in ZooKeeper: made while disconnected, or whose write failed. */
    private final java.util.Set<String> unsynced = ConcurrentHashMap.newKeySet();
    /** Whether ZooKeeper's client sets its watches again on a reconnect (unless told not to). */
    private final boolean autoWatchReset;
    private final List<Sub> subscriptions = new CopyOnWriteArrayList<>();
    /** Curator's last reported connection state; CONNECTED once the constructor returns. */
    private volatile ConnectionState lastState = ConnectionState.CONNECTED;
    /**
     * The session id, read when a connection is made: describe() must not ask Curator for the
     * ZooKeeper handle, which would consume a pending background error or reset the connection.
     */
    private volatile long sessionId;
    /** The last session connected, kept across its loss, to tell a new session from the old one. */
    private volatile long lastSession;
    private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;
    /** Sessions this registry has had: their leftover nodes are ours to replace. */
    private final java.util.Set<Long> ownSessions = ConcurrentHashMap.newKeySet();
    /** Paths where a node of a foreign live session was replaced once already. */
    private final java.util.Set<String> replacedForeign = ConcurrentHashMap.newKeySet();
    /** The ACL of every node this registry creates. */
    private final List<org.apache.zookeeper.data.ACL> acl;
    /** Whether {@link #acl} keeps unauthenticated sessions from adding nodes: then lists are checked. */
    private final boolean secured;
    /** Whether providers are believed only where {@link #trustedIds} alone may have written them. */
    private final boolean verifies;
    /** Set once this consumer has said that it believes anyone on a tree someone in particular writes. */
    private final java.util.concurrent.atomic.AtomicBoolean trustWarned = new java.util.concurrent.atomic.AtomicBoolean();
    /** Who this client is, for messages: {@code digest:user}, {@code sasl} or {@code anonymous}. */
    private final String identity;
    /** Providers paths whose ancestors were found closed (or closed by us) already. */
    private final java.util.Set<String> closedPaths = ConcurrentHashMap.newKeySet();
    /** Who may create under a providers node, or change its ACL, for this client to believe it. */
    private final List<org.apache.zookeeper.data.Id> trustedIds;
    /** Which layout providers write and consumers read. */
    private final ZookeeperSettings.Mode mode;
    /** The application this registry's instances register under (per-instance layout). */
    private final String application;
    /** The thread of the instance directory: every consumer-side change of that layout runs there. */
    private final java.util.concurrent.ExecutorService discoveryThread;
    /** Consumers' view of the per-instance layout. */
    private final InstanceDirectory instanceDirectory;
    /**
     * Per-instance layout: what each address of this process serves. Its lock also guards
     * {@link #instanceNodes} and is held while an address's node is written, so that updates of
     * one address (an unexport racing a stop) apply in order.
     */
    private final Map<io.xrpc.common.Endpoint, Map<ServiceKey, ServiceInstance>> served = new java.util.HashMap<>();
    /** The node each address is registered as. Guarded by {@link #served}. */
    private final Map<io.xrpc.common.Endpoint, String> instanceNodes = new java.util.HashMap<>();
    /** The content of the revisions this registry registers under, by id, written before their instance nodes. */
    private final Map<String, byte[]> revisionContents = new ConcurrentHashMap<>();
    /** Revisions known to be in ZooKeeper with their mapping entries, this session. */
    private final java.util.Set<String> writtenRevisions = ConcurrentHashMap.newKeySet();

    /** Without credentials: see {@link #ZookeeperRegistry(ZookeeperSettings, String, String, String, Runnable)}. */
    public ZookeeperRegistry(ZookeeperSettings config, String connectString, Runnable onClose) {
        this(config, connectString, null, null, onClose);
    }

    /**
     * Connects and waits for the first session, failing after the configured connect timeout.
     *
     * @param username the digest user this client authenticates as, or {@code null} for none (a SASL
     *                 login through the JAAS section {@code Client} is used when one is configured)
     * @param password the digest user's password; never logged
     * @param onClose  run after the client closed (the embedded server stops there)
     */
    public ZookeeperRegistry(ZookeeperSettings config, String connectString, String username, String password,
                             Runnable onClose) {
        this.connectString = connectString;
        this.connectTimeoutMillis = config.connectTimeout().toMillis();
        this.root = config.rootPath();
        this.onClose = onClose;
        this.emptyListGraceMillis = config.emptyListGrace().toMillis();
        this.shrinkGuard = config.shrinkGuard();
        this.shrinkWindowNanos = config.shrinkGuardWindow().toNanos();
        this.mode = config.mode();
        this.application = config.application();
        // Discards what comes after close (the watches' last events).
        this.discoveryThread = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "xrpc-discovery-" + connectString);
                    t.setDaemon(true);
                    return t;
                }, new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "xrpc-registry-" + connectString);
            t.setDaemon(true);
            return t;
        });
        // Curator warns when its connection timeout exceeds the session timeout; the start-up
        // wait below is what the configured connect timeout governs.
        int sessionMillis = (int) config.sessionTimeout().toMillis();
        org.apache.zookeeper.client.ZKClientConfig zkConfig = new org.apache.zookeeper.client.ZKClientConfig();
        config.clientProperties().forEach(zkConfig::setProperty);
        // As the client reads it: from these properties or the JVM's -Dzookeeper.disableAutoWatchReset.
        this.autoWatchReset = !zkConfig.getBoolean(org.apache.zookeeper.client.ZKClientConfig.DISABLE_AUTO_WATCH_RESET);
        boolean sasl = saslLoginConfigured(zkConfig);
        List<org.apache.zookeeper.data.Id> trust = ZookeeperAcl.trust(config.trust());
        this.identity = username != null ? "digest:" + username : sasl ? "sasl" : !trust.isEmpty()
                ? "the identities it trusts (" + trust.stream().map(i -> i.getScheme() + ":"
                        + (i.getId().contains(":") ? i.getId().substring(0, i.getId().indexOf(':')) : i.getId()))
                        .collect(java.util.stream.Collectors.joining(",")) + ")" : "anonymous";
        this.acl = ZookeeperAcl.resolve(config.acl(), username != null || sasl);
        this.secured = !ZookeeperAcl.anyoneMayCreate(acl);
        List<org.apache.zookeeper.data.Id> ids = new java.util.ArrayList<>(ZookeeperAcl.trustedIds(acl, username, password,
                sasl));
        ids.addAll(trust);
        this.trustedIds = List.copyOf(ids);
        // A consumer verifies what it reads when its own nodes are closed, or when told whom to trust.
        this.verifies = secured || !trust.isEmpty();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                // Keep to the configured hosts: Curator would otherwise replace them with the
                // addresses the ensemble lists for itself, which bypasses a DNS name or a proxy.
                .ensembleTracker(false)
                .sessionTimeoutMs(sessionMillis)
                .connectionTimeoutMs((int) Math.min(config.connectTimeout().toMillis(), sessionMillis))
                .retryPolicy(new ExponentialBackoffRetry((int) config.retryBaseSleep().toMillis(), config.maxRetries(),
                        MAX_RETRY_SLEEP_MS))
                .zkClientConfig(zkConfig)
                .aclProvider(new org.apache.curator.framework.api.ACLProvider() {
                    @Override
                    public List<org.apache.zookeeper.data.ACL> getDefaultAcl() {
                        return acl;
                    }

                    @Override
                    public List<org.apache.zookeeper.data.ACL> getAclForPath(String path) {
                        return acl;
                    }
                });
        if (username != null) {
            builder.authorization("digest", (username + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        this.client = builder.build();
        this.instanceDirectory = new InstanceDirectory(client, root, discoveryThread, worker, new InstanceDirectory.Trust() {
            @Override
            public boolean believe(List<org.apache.zookeeper.data.ACL> nodeAcl, Stat stat) {
                return ZookeeperAcl.onlyTrustedMayWrite(nodeAcl, stat.getAversion(), trustedIds);
            }

            @Override
            public boolean secured() {
                return verifies;
            }

            @Override
            public String identity() {
                return identity;
            }

            @Override
            public void unverified(String path, List<org.apache.zookeeper.data.ACL> nodeAcl) {
                warnIfTrustingAnyone(path, nodeAcl);
            }
        });
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                // Before lastState: no moment in which the connection is back and departures believed.
                heldAfterReconnectUntil = System.nanoTime() + shrinkWindowNanos;
                reconnectedOnce = true;
            }
            lastState = state;
            if (state.isConnected()) {
                sessionId = currentSessionId();
            } else if (state == ConnectionState.LOST) {
                sessionId = 0; // expired, or soon: the next connection reports the session it gets
                closedPaths.clear(); // perhaps another server, or its data gone: check the paths again
                writtenRevisions.clear();
            }
            if (state == ConnectionState.RECONNECTED) {
                long session = sessionId;
                if (session == 0 || session != lastSession || !autoWatchReset) {
                    // A new session (after expiry) has none of our ephemeral nodes; without the
                    // client's watch reset, the old one's watches are gone too.
                    unsynced.addAll(registrations.keySet());
                    worker.execute(this::ensureAll);
                } else {
                    // One that survived keeps them, and a node deleted meanwhile fires its watch on
                    // the reconnect (ZooKeeper's client sets its watches again): writing them all
                    // again would only add to the storm. Only what is not known to be there, and
                    // watched, is written.
                    worker.execute(() -> unsynced.forEach(this::ensureQuietly));
                }
                if (mode.instances()) {
                    // What changed while disconnected, read once per application; the watches again.
                    instanceDirectory.resync();
                }
                if (session != 0 && lastSession != 0 && session != lastSession) {
                    // Perhaps a server that never saw the old session (an embedded ZooKeeper taken
                    // over): its nodes' version counters start again, and a cache that compares
                    // them would miss what changed. Read every subscription anew.
                    worker.execute(() -> subscriptions.forEach(Sub::reread));
                }
            }
            if (state.isConnected() && sessionId != 0) {
                lastSession = sessionId;
            }
            if (state == ConnectionState.LOST || state == ConnectionState.SUSPENDED) {
                log.warn("ZooKeeper {} {}: consumers keep their last known providers", connectString, state);
            }
        });
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected((int) config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            throw failedStart("cannot connect to ZooKeeper at " + connectString + " within "
                    + config.connectTimeout().toMillis() + " ms", null);
        }
        try {
            // One request on the raw handle, not through Curator's retries: an ensemble that
            // requires authentication accepts the connection and ends the session at the first request.
            client.getZookeeperClient().getZooKeeper().exists("/", false);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw failedStart("ZooKeeper at " + connectString + " ended the session of " + identity
                    + " at its first request (" + e.getMessage() + "): does the ensemble require authentication"
                    + " (user:password@ in the registry address)?", e);
        }
        if (sessionId == 0) {
            sessionId = currentSessionId(); // before the listener hears of the first connection
        }
        if (!secured && !onlyLoopback(connectString)) {
            log.warn("ZooKeeper {} is used as {} with the ACL {}: anyone who can reach it can add a provider that"
                    + " consumers will call (give the registry user:password@ and see docs/REGISTRY.md)",
                    connectString, identity, ZookeeperAcl.describe(acl));
        }
    }

    /**
     * Warns, once, that this consumer believes providers from anyone while {@code path} is written by
     * someone in particular: a node anyone planted there before the providers registered would be
     * called, tokens and all (10-20 of 20 calls reached such a rogue in a test from outside).
     */
    private void warnIfTrustingAnyone(String path, List<org.apache.zookeeper.data.ACL> nodeAcl) {
        if (!ZookeeperAcl.anyoneMayCreate(nodeAcl) && trustWarned.compareAndSet(false, true)) {
            log.warn("{} is written by {} only, but this registry client has no credentials and no trust setting, so"
                    + " it believes providers from anyone, a node planted before the providers registered included:"
                    + " set trust= to the providers' sasl, x509 or ip identity, or give it the providers' credentials"
                    + " (docs/REGISTRY.md)", path, ZookeeperAcl.describe(nodeAcl));
        }
    }

    /** Closes what the constructor started, and says why it could not finish. */
    private IllegalStateException failedStart(String why, Exception cause) {
        client.close();
        worker.shutdownNow();
        discoveryThread.shutdownNow();
        return new IllegalStateException(why, cause);
    }

    /** Whether ZooKeeper's client will log in with SASL: enabled, and the JAAS configuration has its section. */
    private static boolean saslLoginConfigured(org.apache.zookeeper.client.ZKClientConfig zkConfig) {
        if (!zkConfig.isSaslClientEnabled()
                || System.getProperty(org.apache.zookeeper.Environment.JAAS_CONF_KEY) == null) {
            return false;
        }
        try {
            String section = zkConfig.getProperty(org.apache.zookeeper.client.ZKClientConfig.LOGIN_CONTEXT_NAME_KEY,
                    org.apache.zookeeper.client.ZKClientConfig.LOGIN_CONTEXT_NAME_KEY_DEFAULT);
            return javax.security.auth.login.Configuration.getConfiguration().getAppConfigurationEntry(section) != null;
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

    /** Whether nodes this registry creates keep unauthenticated sessions from adding providers. */
    public boolean secured() {
        return secured;
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

    /** The Curator client, for tests and tools that need to look at the nodes. */
    public CuratorFramework curator() {
        return client;
    }

    @Override
    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /**
     * The interfaces of both layouts: the per-instance layout's mapping entries, and the
     * per-service layout's top-level nodes. Two reads, one reply each (bounded by ZooKeeper's
     * {@code jute.maxbuffer}); nothing is watched or kept.
     *
     * @throws IllegalStateException when ZooKeeper cannot be read, naming why
     */
    @Override
    public List<String> interfaceNames() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        try {
            for (String c : childrenOrNone(root)) {
                if (!c.equals("apps") && !c.equals("mapping")) {
                    names.add(c);
                }
            }
            names.addAll(childrenOrNone(root + "/mapping"));
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the services in " + connectString + root + ": " + e, e);
        }
        return List.copyOf(names);
    }

    /** Applications and revisions {@link #keysOf} reads at most: it names keys in an error, it does not list a fleet. */
    private static final int KEYS_OF_READS = 32;

    /**
     * The keys {@code interfaceName} has providers under, in both layouts: per service
     * ({@code {root}/{interface}/{group}/{version}/providers}), and per instance (the applications
     * its mapping names, the revisions their live instances serve). At most
     * {@value #KEYS_OF_READS} applications and revisions are read, each reply bounded by
     * ZooKeeper's; nothing is watched or kept.
     */
    @Override
    public List<ServiceKey> keysOf(String interfaceName) {
        java.util.Set<ServiceKey> keys = new java.util.TreeSet<>(java.util.Comparator.comparing(ServiceKey::toString));
        String base = root + "/" + interfaceName;
        try {
            for (String group : childrenOrNone(base)) {
                for (String version : childrenOrNone(base + "/" + group)) {
                    if (!childrenOrNone(base + "/" + group + "/" + version + "/providers").isEmpty()) {
                        keys.add(new ServiceKey(interfaceName, NodeCodec.EMPTY.equals(version) ? "" : version,
                                NodeCodec.EMPTY.equals(group) ? "" : group));
                    }
                }
            }
            int reads = 0;
            for (String app : childrenOrNone(NodeCodec.mappingPath(root, interfaceName))) {
                if (!NodeCodec.isApplicationName(app) || ++reads > KEYS_OF_READS) {
                    continue;
                }
                java.util.Set<String> revisions = new java.util.TreeSet<>();
                for (String instance : childrenOrNone(NodeCodec.instancesPath(root, app))) {
                    if (NodeCodec.instanceEndpoint(instance) != null) {
                        revisions.add(NodeCodec.instanceRevision(instance));
                    }
                }
                for (String revision : revisions) {
                    if (++reads > KEYS_OF_READS) {
                        break;
                    }
                    try {
                        byte[] content = client.getData().forPath(NodeCodec.revisionPath(root, app, revision));
                        NodeCodec.decodeRevision(revision, content).services().keySet().stream()
                                .filter(k -> k.interfaceName().equals(interfaceName)).forEach(keys::add);
                    } catch (KeeperException.NoNodeException | IllegalArgumentException gone) {
                        // deregistered meanwhile, or a revision that does not hash to its name: not a key
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the keys of " + interfaceName + " in " + connectString + root
                    + ": " + e, e);
        }
        return List.copyOf(keys);
    }

    private List<String> childrenOrNone(String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /**
     * The ensemble's address, whether it is connected, Curator's last connection state, the
     * ZooKeeper session id (hex; a new one after an expiry) and how many nodes this registry keeps
     * registered and how many services it follows.
     */
    @Override
    public java.util.Map<String, Object> describe() {
        java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("type", "zookeeper");
        d.put("address", connectString);
        d.put("identity", identity);
        d.put("acl", ZookeeperAcl.describe(acl));
        d.put("connected", isConnected());
        d.put("state", lastState.name());
        long session = sessionId;
        d.put("session", session == 0 ? null : "0x" + Long.toHexString(session));
        d.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
        if (mode.instances()) {
            d.put("application", application);
        }
        d.put("registered", registrations.size());
        d.put("subscriptions", subscriptions.size());
        if (mode.instances() && !subscriptions.isEmpty()) {
            int[] f = instanceDirectory.followed();
            d.put("instances", f[0]);
            d.put("applications", f[1]);
        }
        return d;
    }

    @Override
    public void register(ServiceInstance instance) {
        registerAll(List.of(instance));
    }

    /**
     * Registers what one server serves. In the per-instance layout that is one node per address
     * whatever the number of services (and, the first time a revision is seen, its content and
     * mapping entries); in the per-service layout one node per service.
     */
    @Override
    public void registerAll(List<ServiceInstance> instances) {
        if (mode.services()) {
            for (ServiceInstance i : instances) {
                registerNode(NodeCodec.instancePath(root, i), NodeCodec.encode(i));
            }
        }
        if (mode.instances()) {
            synchronized (served) {
                java.util.Set<io.xrpc.common.Endpoint> changed = new java.util.LinkedHashSet<>();
                for (ServiceInstance i : instances) {
                    served.computeIfAbsent(i.endpoint(), e -> new java.util.HashMap<>()).put(i.serviceKey(), i);
                    changed.add(i.endpoint());
                }
                changed.forEach(this::updateInstance);
            }
        }
    }

    /**
     * Registers {@code e}'s node for what it serves now: under a new name when its revision
     * changed (the old node deleted), none when it serves nothing.
     */
    private void updateInstance(io.xrpc.common.Endpoint e) {
        assert Thread.holdsLock(served);
        Map<ServiceKey, ServiceInstance> services = served.get(e);
        String oldNode = instanceNodes.get(e);
        String node;
        if (services == null || services.isEmpty()) {
            served.remove(e);
            instanceNodes.remove(e);
            node = null;
        } else {
            byte[] content = NodeCodec.encodeRevision(services.values());
            String revision = NodeCodec.revisionOf(content);
            revisionContents.put(revision, content);
            node = NodeCodec.instancesPath(root, application) + "/" + NodeCodec.instanceName(e, revision);
            if (node.equals(oldNode)) {
                return;
            }
            instanceNodes.put(e, node);
        }
        // Keep only the revisions of the nodes registered now.
        java.util.Set<String> used = new java.util.HashSet<>();
        instanceNodes.values().forEach(n -> used.add(NodeCodec.instanceRevision(n)));
        revisionContents.keySet().retainAll(used);
        // The new node first: a consumer that sees it takes the address's new revision, and the
        // old node's deletion after it no longer concerns the address (no departure, no flap).
        if (node != null) {
            try {
                registerNode(node, new byte[0]);
            } catch (RuntimeException failed) {
                // The old node stays what consumers see; the new one is dropped, and the next
                // change of this address (or a restart) tries again.
                unregisterNode(node);
                if (oldNode != null) {
                    instanceNodes.put(e, oldNode);
                } else {
                    instanceNodes.remove(e);
                }
                throw failed;
            }
        }
        if (oldNode != null) {
            unregisterNode(oldNode);
        }
    }

    private void registerNode(String path, byte[] data) {
        registrations.put(path, data);
        unsynced.add(path); // until ensure() has made it
        if (!isConnected()) {
            // Curator would block here through its whole retry policy; the reconnect creates it.
            log.warn("ZooKeeper {} is not connected; {} is registered when it is", connectString, path);
            return;
        }
        try {
            ensure(path, data);
        } catch (KeeperException.NoAuthException e) {
            throw new IllegalStateException("cannot register " + path + " in ZooKeeper " + connectString + ": "
                    + identity + " may not create it (NoAuth; a node on its path has an ACL for another identity)", e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot register " + path + " in ZooKeeper " + connectString
                    + "; it is retried after reconnecting", e);
        }
    }

    @Override
    public void unregister(ServiceInstance instance) {
        unregisterAll(List.of(instance));
    }

    /** Withdraws several at once: in the per-instance layout one node per address, not one revision per service. */
    @Override
    public void unregisterAll(List<ServiceInstance> instances) {
        if (mode.services()) {
            for (ServiceInstance i : instances) {
                unregisterNode(NodeCodec.instancePath(root, i));
            }
        }
        if (mode.instances()) {
            synchronized (served) {
                java.util.Set<io.xrpc.common.Endpoint> changed = new java.util.LinkedHashSet<>();
                for (ServiceInstance i : instances) {
                    Map<ServiceKey, ServiceInstance> services = served.get(i.endpoint());
                    if (services != null && services.remove(i.serviceKey()) != null) {
                        changed.add(i.endpoint());
                    }
                }
                changed.forEach(this::updateInstance);
            }
        }
    }

    private void unregisterNode(String path) {
        unsynced.remove(path);
        if (registrations.remove(path) == null) {
            return;
        }
        watchers.remove(path);
        try {
            // In the background and guaranteed: never blocks the caller while ZooKeeper is away,
            // and Curator keeps trying until the node is gone.
            client.delete().quietly().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            log.warn("Could not delete {}; it disappears with this session", path, e);
        }
    }

    /** Creates the node, replacing one left by an earlier session, and watches for its deletion. */
    private void ensure(String path, byte[] data) throws Exception {
        if (closed || !registrations.containsKey(path)) {
            return;
        }
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        ownSessions.add(session);
        // Made and closed before our node appears, so that a consumer believes it when it looks.
        closeAncestors(path.substring(0, path.lastIndexOf('/')));
        if (path.startsWith(instancesPrefix())) {
            writeRevision(NodeCodec.instanceRevision(path));
        }
        try {
            createEphemeral(path, data);
        } catch (KeeperException.NodeExistsException e) {
            Stat stat = client.checkExists().forPath(path);
            if (stat != null && stat.getEphemeralOwner() != session) {
                if (!ownSessions.contains(stat.getEphemeralOwner()) && !replacedForeign.add(path)) {
                    // Replaced once already and back again: another live process advertises the
                    // same address. Fighting over the node would make it flap for every consumer.
                    log.error("{} belongs to another live ZooKeeper session: two providers advertise the same"
                            + " address; not replacing it again (it is taken over if that session ends)", path);
                    watch(path);
                    return;
                }
                log.info("Replacing {} left by an earlier session", path);
                replace(path, stat, data);
            } else if (stat != null) {
                if (!java.util.Arrays.equals(client.getData().forPath(path), data)) {
                    client.setData().forPath(path, data);
                }
            } else {
                ensure(path, data);
                return;
            }
        }
        if (closed || !registrations.containsKey(path)) {
            // unregister() or close() ran while we created it: do not leave it behind.
            client.delete().quietly().forPath(path);
            return;
        }
        if (path.startsWith(instancesPrefix())) {
            // Still there now that our node names it: another instance's sweep may have taken an old
            // revision this one went back to between our look and our node.
            String revision = NodeCodec.instanceRevision(path);
            if (client.checkExists().forPath(NodeCodec.revisionPath(root, application, revision)) == null) {
                writtenRevisions.remove(revision);
                writeRevision(revision);
            }
        }
        if (watch(path)) {
            unsynced.remove(path); // made and watched
        }
    }

    private String instancesPrefix() {
        return NodeCodec.instancesPath(root, application) + "/";
    }

    /**
     * Makes sure the revision an instance node names is readable before the node appears: its
     * mapping entries first, then its content, so that a revision in ZooKeeper implies its
     * mapping. Once per revision and session: one read when it is there already.
     */
    private void writeRevision(String revision) throws Exception {
        byte[] content = revisionContents.get(revision);
        if (content == null || writtenRevisions.contains(revision)) {
            return;
        }
        String path = NodeCodec.revisionPath(root, application, revision);
        byte[] there;
        try {
            there = client.getData().forPath(path);
        } catch (KeeperException.NoNodeException none) {
            there = null;
        }
        if (!java.util.Arrays.equals(there, content)) {
            java.util.Set<String> interfaces = new java.util.TreeSet<>();
            NodeCodec.decodeRevision(revision, content).services().keySet().forEach(k -> interfaces.add(k.interfaceName()));
            for (String iface : interfaces) {
                writeMapping(iface);
            }
            if (there == null) {
                try {
                    client.create().creatingParentsIfNeeded().forPath(path, content);
                    // The first instance of a new deployment: the application's old revisions may go.
                    worker.execute(this::sweepRevisions);
                } catch (KeeperException.NodeExistsException exists) {
                    // another instance of the same revision wrote it
                }
            } else {
                // Other bytes under this revision's name: consumers would not believe it (it does not hash to its name).
                log.warn("{} held content that is not its revision's; writing it again", path);
                client.setData().forPath(path, content);
            }
            closeOpenNode(NodeCodec.revisionsPath(root, application));
        }
        writtenRevisions.add(revision);
    }

    /**
     * How old a revision no instance serves must be before it is deleted: one being written now
     * has its instance node a few milliseconds later; a deployment rolling back finds an old one
     * still there within this time.
     */
    static volatile long revisionKeepMillis = TimeUnit.MINUTES.toMillis(10);

    /**
     * Deletes this application's revisions that no instance serves and that are older than
     * {@link #revisionKeepMillis}, so that ZooKeeper keeps about one revision per live deployment
     * rather than one per deployment ever made. Runs when a new revision is written (once per
     * deployment, by its first instance): two reads of the application's children, one
     * {@code exists} and one delete per stale revision.
     */
    private void sweepRevisions() {
        if (closed || !isConnected()) {
            return;
        }
        String revisions = NodeCodec.revisionsPath(root, application);
        try {
            java.util.Set<String> used = new java.util.HashSet<>();
            for (String name : client.getChildren().forPath(NodeCodec.instancesPath(root, application))) {
                if (NodeCodec.instanceEndpoint(name) != null) {
                    used.add(NodeCodec.instanceRevision(name));
                }
            }
            long now = System.currentTimeMillis();
            int deleted = 0;
            for (String r : client.getChildren().forPath(revisions)) {
                if (used.contains(r) || revisionContents.containsKey(r)) {
                    continue;
                }
                Stat st = client.checkExists().forPath(revisions + "/" + r);
                if (st != null && now - st.getCtime() >= revisionKeepMillis) {
                    try {
                        client.delete().withVersion(st.getVersion()).forPath(revisions + "/" + r);
                        deleted++;
                    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException
                             | KeeperException.NoAuthException e) {
                        // gone, rewritten, or another identity's: left alone
                    }
                }
            }
            if (deleted > 0) {
                log.info("Deleted {} revisions of application {} that no instance serves any more", deleted, application);
            }
        } catch (Exception e) {
            log.debug("Could not sweep the revisions of {}", application, e);
        }
    }

    /**
     * Adds this application to the interface's mapping. A mapping made by another identity (another
     * team serving the same interface) may refuse it: consumers then do not find this application
     * through that interface, which is said, but its other services still register.
     */
    private void writeMapping(String iface) throws Exception {
        String node = NodeCodec.mappingPath(root, iface);
        try {
            client.create().creatingParentsIfNeeded().forPath(node + "/" + application);
        } catch (KeeperException.NodeExistsException exists) {
            // another instance of the application wrote it
        } catch (KeeperException.NoAuthException refused) {
            log.error("{} may not add application {} to {} (its ACL is another identity's): consumers will not find"
                    + " {} of this application; see docs/REGISTRY.md", identity, application, node, iface);
            return;
        }
        closeOpenNode(node);
    }

    /** With credentials: a node anyone may add children to gets this registry's ACL (said once per node). */
    private void closeOpenNode(String path) throws Exception {
        if (!secured || closedPaths.contains(path)) {
            return;
        }
        try {
            closeIfOpen(path);
        } catch (KeeperException.NoNodeException gone) {
            return;
        }
        closedPaths.add(path);
    }

    /** Gives {@code path} this registry's ACL when anyone may add children to it, saying so. */
    private void closeIfOpen(String path) throws Exception {
        List<org.apache.zookeeper.data.ACL> current = client.getACL().forPath(path);
        if (ZookeeperAcl.anyoneMayCreate(current)) {
            try {
                client.setACL().withACL(acl).forPath(path);
                log.warn("{} let anyone add nodes ({}); set to {}", path, ZookeeperAcl.describe(current),
                        ZookeeperAcl.describe(acl));
            } catch (KeeperException.NoAuthException e) {
                log.error("{} lets anyone add nodes ({}) and {} may not change its ACL", path,
                        ZookeeperAcl.describe(current), identity);
            }
        }
    }

    /**
     * Creates a provider's node and any missing node above it: containers, which ZooKeeper removes
     * once empty, without credentials; persistent with them, so that nobody can take a path over
     * after it was removed.
     */
    private void createEphemeral(String path, byte[] data) throws Exception {
        if (secured) {
            client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
        } else {
            client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
        }
    }

    /**
     * With credentials: makes the providers node anew when this registry would not believe it
     * (its ACL changed since it was made, or lets others add to it; what is under it was then
     * possibly written by them), creating it and the nodes above it with this registry's ACL, and
     * gives that ACL to any node above it that anyone may add to. Once per providers node.
     */
    private void closeAncestors(String providersPath) throws Exception {
        if (!secured || closedPaths.contains(providersPath)) {
            return;
        }
        Stat st = new Stat();
        try {
            List<org.apache.zookeeper.data.ACL> current = client.getACL().storingStatIn(st).forPath(providersPath);
            if (!ZookeeperAcl.onlyTrustedMayWrite(current, st.getAversion(), trustedIds)) {
                try {
                    client.delete().deletingChildrenIfNeeded().forPath(providersPath);
                    log.warn("{} was not made by this identity alone (ACL {}, changed {} times since made): made it"
                            + " anew; providers registered under it register again (docs/REGISTRY.md)",
                            providersPath, ZookeeperAcl.describe(current), st.getAversion());
                } catch (KeeperException.NoAuthException e) {
                    log.error("{} was not made by this identity alone (ACL {}) and {} may not delete it: consumers"
                            + " with credentials will not believe its providers; delete it as ZooKeeper's admin",
                            providersPath, ZookeeperAcl.describe(current), identity);
                    return;
                }
            }
        } catch (KeeperException.NoNodeException none) {
            // made below
        }
        try {
            client.create().creatingParentsIfNeeded().forPath(providersPath);
        } catch (KeeperException.NodeExistsException exists) {
            // ours, checked above
        }
        for (String p = providersPath.substring(0, providersPath.lastIndexOf('/')); p.length() >= root.length();
             p = p.substring(0, p.lastIndexOf('/'))) {
            closeIfOpen(p);
            if (p.equals(root)) {
                break;
            }
        }
        closedPaths.add(providersPath);
    }

    /**
     * Deletes the node of an earlier session and creates ours in one transaction, so that no
     * reader of ZooKeeper sees the path without a node in between. (Watchers still get the
     * deletion and the creation as two events; consumers hold their list over such a moment, see
     * {@link ZookeeperSettings#emptyListGrace()}.)
     */
    private void replace(String path, Stat old, byte[] data) throws Exception {
        try {
            client.transaction().forOperations(
                    client.transactionOp().delete().withVersion(old.getVersion()).forPath(path),
                    client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(path, data));
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            // It expired or changed meanwhile: create it if it is not there now.
            try {
                createEphemeral(path, data);
            } catch (KeeperException.NodeExistsException again) {
                ensure(path, data);
            }
        }
    }

    /**
     * Arms the one-shot watch on our node. One watcher object per path: ZooKeeper keeps a watcher
     * once however often it is registered, so repeated arming does not multiply callbacks.
     */
    private boolean watch(String path) throws Exception {
        CuratorWatcher w = watchers.computeIfAbsent(path, p -> event -> onWatch(event, p));
        if (client.checkExists().usingWatcher(w).forPath(path) == null) {
            // Deleted between our last look and this watch: the watch now waits for a creation.
            unsynced.add(path);
            worker.execute(() -> ensureQuietly(path));
            return false;
        }
        return true;
    }

    private void onWatch(WatchedEvent event, String path) {
        if (closed || !registrations.containsKey(path) || event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            unsynced.add(path);
            log.warn("{} was deleted while this provider runs; registering it again", path);
            worker.execute(() -> ensureQuietly(path));
        } else {
            worker.execute(() -> {
                try {
                    watch(path);
                } catch (Exception e) {
                    unsynced.add(path); // watched again, or made again, on the next reconnect
                    log.debug("Could not watch {} again yet", path, e);
                }
            });
        }
    }

    private void ensureAll() {
        for (String path : registrations.keySet()) {
            ensureQuietly(path);
        }
    }

    private void ensureQuietly(String path) {
        byte[] data = registrations.get(path);
        if (data == null) {
            return;
        }
        try {
            ensure(path, data);
        } catch (Exception e) {
            if (registrations.containsKey(path)) {
                unsynced.add(path);
            }
            log.warn("Could not register {} again yet; retrying after the next reconnect", path, e);
        }
    }

    /**
     * Whether a list that shrinks now may be the registry's trouble rather than the providers':
     * while this client is disconnected, and for the guard's window after it came back (sessions
     * of providers that expired in the same outage are still being replaced).
     */
    private boolean disturbed() {
        return !lastState.isConnected()
                || reconnectedOnce && System.nanoTime() - heldAfterReconnectUntil < 0;
    }

    /**
     * Watches {@code key} and returns once the first list is loaded, so a reference made just now
     * already knows its providers; when ZooKeeper is unreachable it returns after the connect
     * timeout with an empty list that fills in on reconnection.
     */
    @Override
    public Subscription subscribe(ServiceKey key, Listener listener) {
        if (mode == ZookeeperSettings.Mode.ALL) {
            return new Union(key, listener);
        }
        return subscribe(key, listener, mode == ZookeeperSettings.Mode.INTERFACE);
    }

    private Sub subscribe(ServiceKey key, Listener listener, boolean perService) {
        Sub sub = new Sub(key, listener, perService);
        subscriptions.add(sub);
        sub.start();
        try {
            if (!sub.initialized.await(connectTimeoutMillis, TimeUnit.MILLISECONDS)) {
                log.warn("Providers of {} not loaded from ZooKeeper {} within {} ms; going on without them for now",
                        key, connectString, connectTimeoutMillis);
            } else {
                sub.verify(); // here rather than on the worker: the first list is known when this returns
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sub;
    }

    /** Subscriptions open now: each holds a cache of its providers' nodes until closed. */
    int subscriptionCount() {
        return subscriptions.size();
    }

    /**
     * Ends the session, which removes every node it registered at once (or, while ZooKeeper is
     * unreachable, when the session times out), and stops the subscriptions.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        registrations.clear();
        instanceDirectory.close();
        for (Sub s : subscriptions) {
            s.close();
        }
        worker.shutdownNow();
        discoveryThread.shutdownNow();
        client.close();
        if (onClose != null) {
            onClose.run();
        }
    }

    /**
     * Both layouts read, for a fleet moving from one to the other: the union of the two lists by
     * address, the per-instance entry first.
     */
    private final class Union implements Subscription {
        private final ServiceKey key;
        private final Listener listener;
        private volatile List<ServiceInstance> instances = List.of();
        private final Sub perInstance;
        private final Sub perService;

        Union(ServiceKey key, Listener listener) {
            this.key = key;
            this.listener = listener;
            this.perInstance = subscribe(key, l -> update(), false);
            this.perService = subscribe(key, l -> update(), true);
            update();
        }

        private synchronized void update() {
            if (perInstance == null || perService == null) {
                return; // the constructor's own update() comes
            }
            Map<io.xrpc.common.Endpoint, ServiceInstance> all = new java.util.LinkedHashMap<>();
            perService.instances().forEach(i -> all.put(i.endpoint(), i));
            perInstance.instances().forEach(i -> all.put(i.endpoint(), i));
            List<ServiceInstance> next = List.copyOf(all.values());
            if (!next.equals(instances)) {
                instances = next;
                deliver(listener, next, key);
            }
        }

        @Override
        public List<ServiceInstance> instances() {
            return instances;
        }

        @Override
        public void close() {
            perInstance.close();
            perService.close();
        }
    }

    /** Passes {@code list} to {@code listener}; a listener's failure is logged, and the next change delivered too. */
    private static void deliver(Listener listener, List<ServiceInstance> list, ServiceKey key) {
        try {
            listener.onChange(list);
        } catch (RuntimeException e) {
            log.warn("A listener of {} failed on a new list", key, e);
        }
    }

    /** A provider the shrink guard keeps, and since when (nanoTime). */
    private record Held(ServiceInstance instance, long since) {
    }


    /**
     * One service's list, fed by its own cache of the per-service layout or by the
     * {@link InstanceDirectory} one change at a time, through the shrink guard and the empty-list
     * grace to the listener.
     */
    private final class Sub implements Subscription, InstanceDirectory.Target {
        private final ServiceKey key;
        private final String path;
        private final Listener listener;
        /** The per-service layout's cache; null when the instance directory feeds this list. */
        private volatile CuratorCache cache;
        /** A cache reading the node anew, which replaces {@link #cache} once read whole; guarded by this. */
        private CuratorCache pending;
        private volatile List<ServiceInstance> instances = List.of();
        /**
         * The list as the registry last gave it, believed; {@link #instances} adds {@link #held}.
         * Replaced, never changed, so that a published list can be a view of it. Guarded by this.
         */
        private ChunkedList<ServiceInstance> listed = ChunkedList.empty();
        /** Providers that vanished while the guard held departures, by address. Guarded by this. */
        private final Map<io.xrpc.common.Endpoint, Held> held = new java.util.LinkedHashMap<>();
        /** When the registry last listed a provider gone (nanoTime). Guarded by this. */
        private long lastDeparture;
        /** The guard's window: when it began, the list's size then, and who left since and is not back. Guarded by this. */
        private long windowStart;
        private int windowBase;
        private final Map<io.xrpc.common.Endpoint, ServiceInstance> windowGone = new java.util.HashMap<>();
        private java.util.concurrent.ScheduledFuture<?> release;
        private java.util.concurrent.ScheduledFuture<?> pendingEmpty;
        private volatile boolean closedSub; // written under this, as pendingEmpty
        final java.util.concurrent.CountDownLatch initialized = new java.util.concurrent.CountDownLatch(1);

        Sub(ServiceKey key, Listener listener, boolean perService) {
            this.key = key;
            this.path = NodeCodec.providersPath(root, key);
            this.listener = listener;
            this.cache = perService ? newCache() : null;
        }

        @Override
        public ServiceKey key() {
            return key;
        }

        @Override
        public void ready() {
            initialized.countDown();
        }

        /** A cache of the providers node whose events count once it is the current one and read whole. */
        private CuratorCache newCache() {
            CuratorCache c = CuratorCache.build(client, path);
            java.util.concurrent.atomic.AtomicBoolean whole = new java.util.concurrent.atomic.AtomicBoolean();
            c.listenable().addListener(CuratorCacheListener.builder()
                    .forAll((type, oldData, data) -> {
                        if (whole.get() && cache == c) {
                            refresh();
                        }
                    })
                    .afterInitialized()
                    .forInitialized(() -> {
                        whole.set(true);
                        CuratorCache replaced = null;
                        synchronized (this) {
                            if (pending == c) {
                                replaced = cache;
                                cache = c;
                                pending = null;
                            }
                        }
                        if (replaced != null) {
                            replaced.close();
                        }
                        if (cache == c) {
                            refresh();
                            initialized.countDown();
                        }
                    })
                    .build());
            return c;
        }

        /** Whether {@link #start()} ran: a reread before it would race the first cache's start. */
        private boolean started; // guarded by this

        synchronized void start() {
            started = true;
            if (cache != null) {
                cache.start();
            } else {
                instanceDirectory.attach(this);
            }
        }

        /**
         * Reads the providers node anew into a new cache, which replaces the old one once read
         * whole; until then the last list stands (and an empty one waits out the grace).
         */
        void reread() {
            synchronized (this) {
                if (closedSub || !started || cache == null) {
                    return; // a subscription starting now reads the server as it is
                }
                if (pending != null) {
                    pending.close();
                }
                // A new node, perhaps: trusted() checks its ACL again when its czxid differs.
                pending = newCache();
                pending.start(); // reads in the background; under the lock, so close() cannot miss it
            }
        }

        private void refresh() {
            publish(read(), trusted(), false);
        }

        /**
         * The providers node as last checked: its creation and ACL versions, and whether only
         * trusted identities may write under it. Lists are believed only under such a node, when secured.
         */
        private volatile long checkedCzxid = -1;
        private volatile int checkedAversion = -1;
        private volatile boolean believed;
        private final java.util.concurrent.atomic.AtomicBoolean verifying = new java.util.concurrent.atomic.AtomicBoolean();
        /** Whether this unverifying subscription has looked at its node's ACL, to warn if it is not open. */
        private final java.util.concurrent.atomic.AtomicBoolean lookedAtAcl = new java.util.concurrent.atomic.AtomicBoolean();

        /** Whether the providers node is the one last checked and was believed; starts a check when it is not. */
        private boolean trusted() {
            if (!verifies) {
                if (!trustWarned.get() && lookedAtAcl.compareAndSet(false, true)) {
                    worker.execute(() -> {
                        try {
                            warnIfTrustingAnyone(path, client.getACL().forPath(path));
                        } catch (Exception e) {
                            lookedAtAcl.set(false); // no node yet, or not readable now: look at the next list
                        }
                    });
                }
                return true;
            }
            ChildData node = cache.get(path).orElse(null);
            if (node == null || node.getStat() == null) {
                return true; // no providers node: no list to believe or doubt
            }
            Stat st = node.getStat();
            if (st.getCzxid() == checkedCzxid && st.getAversion() == checkedAversion) {
                return believed;
            }
            if (verifying.compareAndSet(false, true)) {
                worker.execute(() -> {
                    verifying.set(false);
                    verify();
                });
            }
            return false;
        }

        /** Reads the providers node's ACL, logs when its providers are not believed, and publishes the list. */
        void verify() {
            if (!verifies || closedSub || cache == null) {
                return;
            }
            try {
                Stat st = new Stat();
                List<org.apache.zookeeper.data.ACL> current = client.getACL().storingStatIn(st).forPath(path);
                boolean now = ZookeeperAcl.onlyTrustedMayWrite(current, st.getAversion(), trustedIds);
                boolean sameNode = st.getCzxid() == checkedCzxid && st.getAversion() == checkedAversion;
                if (!now && (believed || !sameNode)) {
                    log.error("Not calling the providers of {} listed under {}: its ACL ({}, changed {} times since it"
                            + " was made) does not prove that only {} wrote there, so its providers cannot be attributed."
                            + " A provider with these credentials makes it anew when it registers (docs/REGISTRY.md){}",
                            key, path, ZookeeperAcl.describe(current), st.getAversion(), identity,
                            ZookeeperAcl.hiddenDigests(current));
                } else if (now && !believed && checkedCzxid != -1) {
                    log.info("{} is written by trusted identities only now ({}); its providers are believed", path,
                            ZookeeperAcl.describe(current));
                }
                believed = now;
                checkedAversion = st.getAversion();
                checkedCzxid = st.getCzxid();
            } catch (KeeperException.NoNodeException gone) {
                // deleted meanwhile: the cache's next event checks again
            } catch (Exception e) {
                log.debug("Could not read the ACL of {} yet", path, e);
                return;
            }
            refresh();
        }

        /** The providers in the cache; to be believed only when {@link #trusted()}. */
        private List<ServiceInstance> read() {
            List<ServiceInstance> list = new ArrayList<>();
            String prefix = path + "/";
            cache.stream().forEach((ChildData d) -> {
                String p = d.getPath();
                if (p.startsWith(prefix) && p.indexOf('/', prefix.length()) < 0) {
                    try {
                        list.add(NodeCodec.decode(key, p.substring(prefix.length()), d.getData()));
                    } catch (RuntimeException e) {
                        log.warn("Ignoring provider node {} with unreadable data", p, e);
                    }
                }
            });
            return List.copyOf(list);
        }

        /**
         * Takes the registry's whole list (the per-service layout reads it whole): unless
         * {@code believed} (the providers node's ACL was checked and found untrustworthy) it is
         * passed on, with the guard's held providers, through {@link #emit}. O(list).
         */
        private synchronized void publish(List<ServiceInstance> next, boolean believed, boolean graceOver) {
            if (closedSub) {
                return; // a late cache callback, or the first verify(), racing close()
            }
            if (!believed) {
                releaseHeld();
                listed = ChunkedList.empty();
                index();
                emit(List.of(), graceOver, true);
                return;
            }
            if (shrinkGuard > 0 && (!listed.isEmpty() || !held.isEmpty())) {
                Map<io.xrpc.common.Endpoint, ServiceInstance> now = new java.util.HashMap<>(next.size() * 2);
                for (ServiceInstance i : next) {
                    now.put(i.endpoint(), i);
                }
                now.keySet().forEach(this::back); // a restart, not a departure
                List<ServiceInstance> departed = new ArrayList<>();
                for (ServiceInstance i : listed) {
                    if (!now.containsKey(i.endpoint())) {
                        departed.add(i);
                    }
                }
                guard(departed, listed.size());
            }
            listed = ChunkedList.of(next);
            index();
            emit(withHeld(), graceOver, true);
        }

        /**
         * One instance arrived or changed (the instance directory): found through {@link #slots},
         * and the published list shares every chunk but one with the last; no read, no map rebuilt.
         */
        @Override
        public synchronized void arrived(ServiceInstance i) {
            if (!closedSub && put(i)) {
                emit(withHeld(), false, false);
            }
        }

        /** Many arrived at once (a subscription joining a followed application): published once. */
        @Override
        public synchronized void arrivedAll(List<ServiceInstance> all) {
            boolean changed = false;
            for (ServiceInstance i : all) {
                changed |= !closedSub && put(i);
            }
            if (changed) {
                emit(withHeld(), false, false);
            }
        }

        /** Lists {@code i} (in its address's place, or at the end); whether anything changed. */
        private boolean put(ServiceInstance i) {
            int slot = slotOf(i.endpoint());
            if (slot >= 0) {
                int at = slots[slot];
                if (listed.get(at).equals(i)) {
                    return false;
                }
                listed = listed.with(at, i);
            } else {
                listed = listed.plus(i);
                if ((listed.size() << 2) > slots.length * 3) {
                    index(); // grown past three quarters: a table twice the size
                } else {
                    slots[-slot - 1] = listed.size() - 1;
                }
            }
            back(i.endpoint());
            return true;
        }

        /** {@code e} is listed by the registry again: no longer held, and not counted as gone in the window. */
        private void back(io.xrpc.common.Endpoint e) {
            if (held.remove(e) != null && held.isEmpty()) {
                heldGone();
            }
            windowGone.remove(e);
        }

        /**
         * One instance left (the instance directory); {@code guarded}: the shrink guard may keep it.
         * The last entry takes its place; the new list shares every chunk but two with the last.
         */
        @Override
        public synchronized void departed(io.xrpc.common.Endpoint e, boolean guarded) {
            int slot = closedSub ? -1 : slotOf(e);
            if (slot < 0) {
                return;
            }
            int at = slots[slot];
            int last = listed.size() - 1;
            ServiceInstance gone = listed.get(at);
            ChunkedList<ServiceInstance> next = listed.minusSwapped(at);
            deleteSlot(slot);
            if (at != last) {
                slots[slotOf(listed.get(last).endpoint())] = at;
            }
            int before = listed.size();
            listed = next;
            if (guarded && shrinkGuard > 0) {
                guard(List.of(gone), before);
            } else {
                held.remove(e);
            }
            emit(withHeld(), false, false);
        }

        /**
         * Where each address is in {@link #listed}: an open-addressing table of positions (-1:
         * empty), at most three quarters full, about 8 bytes per provider. Guarded by this.
         */
        private int[] slots = emptySlots(16);

        private static int[] emptySlots(int n) {
            int[] t = new int[n];
            java.util.Arrays.fill(t, -1);
            return t;
        }

        private int home(io.xrpc.common.Endpoint e) {
            int h = e.hashCode();
            return (h ^ (h >>> 16)) & (slots.length - 1);
        }

        /** The slot holding {@code e}'s position, or {@code -(free slot) - 1} when it is not listed. */
        private int slotOf(io.xrpc.common.Endpoint e) {
            int mask = slots.length - 1;
            for (int h = home(e); ; h = (h + 1) & mask) {
                int at = slots[h];
                if (at < 0) {
                    return -h - 1;
                }
                if (listed.get(at).endpoint().equals(e)) {
                    return h;
                }
            }
        }

        /** Empties slot {@code i}, moving back the entries after it that would no longer be found. */
        private void deleteSlot(int i) {
            int mask = slots.length - 1;
            for (int j = (i + 1) & mask; slots[j] >= 0; j = (j + 1) & mask) {
                int k = home(listed.get(slots[j]).endpoint());
                boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
                if (!stays) {
                    slots[i] = slots[j];
                    i = j;
                }
            }
            slots[i] = -1;
        }

        /** Builds {@link #slots} for {@link #listed} anew. */
        private void index() {
            int size = 16;
            while (size * 3 < (listed.size() << 2)) {
                size <<= 1;
            }
            slots = emptySlots(size);
            for (int at = 0; at < listed.size(); at++) {
                int s = slotOf(listed.get(at).endpoint());
                if (s < 0) {
                    slots[-s - 1] = at;
                }
            }
        }

        /**
         * The shrink guard: providers that vanish while the registry is disturbed (this client's
         * connection down or just back), or more of them within the window than the guard's share
         * of the list, are held in the list. They are let go once the registry has listed no
         * further departure for a window and is not disturbed, and each after three windows
         * whatever happens (a connection that keeps dropping does not hold them for ever); one
         * that comes back meanwhile is the registry's again. A held provider that is really gone
         * refuses its connection, which failover retries elsewhere and outlier detection sets
         * aside. O(departed) per change.
         *
         * @param before the size of the list before these departures
         */
        private void guard(List<ServiceInstance> departed, int before) {
            if (departed.isEmpty()) {
                return;
            }
            long t = System.nanoTime();
            lastDeparture = t;
            if (windowGone.isEmpty() || t - windowStart > shrinkWindowNanos) {
                windowStart = t;
                windowBase = before;
                windowGone.clear();
            }
            for (ServiceInstance i : departed) {
                windowGone.put(i.endpoint(), i);
            }
            boolean mass = windowGone.size() >= MASS_DEPARTURE && windowGone.size() > shrinkGuard * windowBase;
            boolean disturbed = disturbed();
            if (disturbed || mass) {
                // Those that left earlier in the window too: the share was reached only now.
                for (ServiceInstance i : windowGone.values()) {
                    held.putIfAbsent(i.endpoint(), new Held(i, t));
                }
                if (holdLogged.compareAndSet(false, true)) {
                    log.warn("ZooKeeper {} {}: {} of {} providers of {} vanished; keeping them until the registry"
                            + " has been stable for {} ms (calls to any that are really gone fail over; logged once"
                            + " per episode)", connectString, disturbed ? "was disconnected just now"
                            : "lists many providers gone at once", windowGone.size(), windowBase, key,
                            TimeUnit.NANOSECONDS.toMillis(shrinkWindowNanos));
                }
                if (release == null) {
                    scheduleRelease(shrinkWindowNanos);
                }
            }
        }

        private void scheduleRelease(long delayNanos) {
            release = worker.schedule(this::releaseIfStable, delayNanos, TimeUnit.NANOSECONDS);
        }

        /**
         * Lets go of what is held once the registry has listed no departure for a window and this
         * client is connected, and of each provider held three windows; else looks again when that
         * may be. A call that finds nothing due (one overtaken by a later departure) only
         * reschedules, so a stale one does no harm.
         */
        private synchronized void releaseIfStable() {
            release = null;
            if (closedSub || held.isEmpty()) {
                return;
            }
            long t = System.nanoTime();
            long quiet = t - lastDeparture;
            int before = held.size();
            if (quiet >= shrinkWindowNanos && !disturbed()) {
                held.clear();
            } else {
                held.values().removeIf(h -> t - h.since() >= 3 * shrinkWindowNanos);
            }
            if (held.size() < before) {
                log.info("ZooKeeper {}: letting go of {} providers of {} it no longer lists ({} ms since a provider"
                        + " last vanished)", connectString, before - held.size(), key, TimeUnit.NANOSECONDS.toMillis(quiet));
                emit(withHeld(), true, true); // a list the registry has kept for a window needs no further grace
            }
            if (held.isEmpty()) {
                heldGone();
                return;
            }
            long oldest = Long.MAX_VALUE;
            for (Held h : held.values()) {
                oldest = Math.min(oldest, 3 * shrinkWindowNanos - (t - h.since()));
            }
            scheduleRelease(Math.max(1_000_000, Math.min(oldest, shrinkWindowNanos - quiet > 0
                    ? shrinkWindowNanos - quiet : shrinkWindowNanos)));
        }

        /** The list to publish: {@link #listed} itself, plus what is held (rarely anything). */
        private List<ServiceInstance> withHeld() {
            if (held.isEmpty()) {
                return listed;
            }
            List<ServiceInstance> all = new ArrayList<>(listed.size() + held.size());
            all.addAll(listed);
            held.values().forEach(h -> all.add(h.instance()));
            return java.util.Collections.unmodifiableList(all);
        }

        private void releaseHeld() {
            boolean had = !held.isEmpty();
            held.clear();
            if (had) {
                heldGone();
            }
        }

        /** Nothing is held any more: the next hold starts a new episode, logged again. */
        private void heldGone() {
            windowGone.clear();
            holdLogged.set(false);
            if (release != null) {
                release.cancel(false);
                release = null;
            }
        }

        /**
         * Passes a new list on, except that a sudden empty list is held for the grace: a provider
         * replacing its node after a session expiry shows watchers a deletion before the creation.
         *
         * @param compare whether {@code next} may equal the list last passed on (a whole list read
         *                again); a single change always differs
         */
        private void emit(List<ServiceInstance> next, boolean graceOver, boolean compare) {
            if (next.isEmpty() && !instances.isEmpty() && !graceOver && emptyListGraceMillis > 0 && !closedSub) {
                if (pendingEmpty == null) {
                    pendingEmpty = worker.schedule(this::emptyGraceOver, emptyListGraceMillis, TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (pendingEmpty != null) {
                pendingEmpty.cancel(false);
                pendingEmpty = null;
            }
            if (!compare || !next.equals(instances)) {
                if (next.isEmpty()) {
                    // The consumer side warns, naming its reference: this is the registry's view.
                    log.debug("ZooKeeper {} lists no provider of {} any more", connectString, key);
                }
                instances = next;
                deliver(listener, next, key);
            }
        }

        private synchronized void emptyGraceOver() {
            pendingEmpty = null;
            if (!closedSub) {
                emit(withHeld(), true, true);
            }
        }

        @Override
        public List<ServiceInstance> instances() {
            return instances;
        }

        @Override
        public void close() {
            subscriptions.remove(this);
            synchronized (this) {
                closedSub = true;
                if (pending != null) {
                    pending.close();
                    pending = null;
                }
                if (cache != null) {
                    cache.close();
                } else {
                    instanceDirectory.detach(this);
                }
                releaseHeld();
                if (pendingEmpty != null) {
                    pendingEmpty.cancel(false);
                    pendingEmpty = null;
                }
            }
        }
    }
}
