package io.xrpc.registry.zookeeper;

import io.xrpc.common.ServiceKey;
import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.Registry;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.discover.Catalog;
import io.xrpc.registry.zookeeper.discover.PeerGroup;
import io.xrpc.registry.zookeeper.discover.Subscriptions;
import io.xrpc.registry.zookeeper.publish.Publisher;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;

/**
 * Service registry and discovery on ZooKeeper through Curator: one {@link ZookeeperSession}, a
 * {@link Publisher} for what this process serves and {@link Subscriptions} for what it calls,
 * wired by the layout {@link ZookeeperSettings#mode()} names.
 *
 * <p>Providers are EPHEMERAL nodes, so a provider that dies without a word disappears when its
 * session times out; a registration is kept alive across session expiries and deletions
 * ({@code publish}). Consumers keep the last list in memory: while ZooKeeper is unreachable
 * nothing changes for them, and calls go on to the providers they know; a list that shrinks while
 * the registry is disturbed is held ({@code discover}). Every node it creates gets the ACL of
 * {@link ZookeeperSettings#acl()}, and with credentials a consumer believes only providers that
 * trusted identities alone may have written ({@code session}). Node layout, failure behaviour and
 * limits: docs/REGISTRY.md.
 */
public final class ZookeeperRegistry implements Registry {
    private final ZookeeperSettings.Mode mode;
    private final String application;
    private final String rootPath;
    /** Each service's peer group, made when a reference to it first subsets. */
    private final Map<ServiceKey, PeerGroup> peers = new HashMap<>(); // guarded by itself
    /** This consumer's name in every peer group it joins. */
    private final String peerName = PeerGroup.newName();

    private final ZookeeperSession session;
    private final Publisher publisher;
    private final Subscriptions subscriptions;
    private final Catalog catalog;
    private final Runnable onClose;
    private final AtomicBoolean closing = new AtomicBoolean();

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
    public ZookeeperRegistry(
            ZookeeperSettings config, String connectString, String username, String password, Runnable onClose) {
        this.mode = config.mode();
        this.application = config.application();
        this.rootPath = config.rootPath();
        this.onClose = onClose;
        this.session = new ZookeeperSession(new ZookeeperSession.Settings(
                connectString,
                username,
                password,
                config.sessionTimeout(),
                config.connectTimeout(),
                config.retryBaseSleep(),
                config.maxRetries(),
                config.clientProperties(),
                config.acl(),
                config.trust()));
        this.publisher = Publisher.of(session, config.rootPath(), mode.services(), mode.instances(), application);
        this.subscriptions = new Subscriptions(
                session,
                new Subscriptions.Settings(
                        config.rootPath(),
                        mode.services(),
                        mode.instances(),
                        config.emptyListGrace(),
                        config.shrinkGuard(),
                        config.shrinkGuardWindow(),
                        config.connectTimeout()));
        session.listen(subscriptions); // after the publisher: registrations are made again first
        this.catalog = new Catalog(session.curator(), connectString, config.rootPath());
    }

    /** Whether nodes this registry creates keep unauthenticated sessions from adding providers. */
    public boolean secured() {
        return session.trust().secured();
    }

    /** The ZooKeeper connect string in use. */
    public String connectString() {
        return session.connectString();
    }

    /** The Curator client, for tests and tools that need to look at the nodes. */
    public CuratorFramework curator() {
        return session.curator();
    }

    @Override
    public boolean isConnected() {
        return session.isConnected();
    }

    /**
     * The interfaces of both layouts: the per-instance layout's mapping entries, and the
     * per-service layout's top-level nodes. Nothing is watched or kept.
     *
     * @throws IllegalStateException when ZooKeeper cannot be read, naming why
     */
    @Override
    public List<String> interfaceNames() {
        return catalog.interfaceNames();
    }

    /**
     * The keys {@code interfaceName} has providers under, in both layouts; a bounded number of
     * reads, nothing watched or kept.
     */
    @Override
    public List<ServiceKey> keysOf(String interfaceName) {
        return catalog.keysOf(interfaceName);
    }

    /**
     * The ensemble's address, whether it is connected, Curator's last connection state, the
     * ZooKeeper session id (hex; a new one after an expiry) and how many nodes this registry keeps
     * registered and how many services it follows.
     */
    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("type", "zookeeper");
        d.put("address", session.connectString());
        d.put("identity", session.trust().identity());
        d.put("acl", ZookeeperAcl.describe(session.trust().acl()));
        d.put("connected", isConnected());
        d.put("state", session.state().name());
        long id = session.sessionId();
        d.put("session", id == 0 ? null : "0x" + Long.toHexString(id));
        d.put("mode", mode.name().toLowerCase(Locale.ROOT));
        if (mode.instances()) {
            d.put("application", application);
        }
        d.put("registered", publisher.registered());
        d.put("subscriptions", subscriptions.size());
        if (mode.instances() && subscriptions.size() > 0) {
            int[] f = subscriptions.followed();
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
        requireKeys(instances);
        publisher.registerAll(instances);
    }

    /** A registration names its service: a discovered instance shared between services names none. */
    private static void requireKeys(List<ServiceInstance> instances) {
        for (ServiceInstance i : instances) {
            if (i.serviceKey() == null) {
                throw new IllegalArgumentException("cannot register or unregister " + i.endpoint()
                        + " without a service key: a shared, discovered instance names no service");
            }
        }
    }

    @Override
    public void unregister(ServiceInstance instance) {
        unregisterAll(List.of(instance));
    }

    /** Withdraws several at once: in the per-instance layout one node per address, not one revision per service. */
    @Override
    public void unregisterAll(List<ServiceInstance> instances) {
        requireKeys(instances);
        publisher.unregisterAll(instances);
    }

    /**
     * Watches {@code key} and returns once the first list is loaded, so a reference made just now
     * already knows its providers; when ZooKeeper is unreachable it returns after the connect
     * timeout with an empty list that fills in on reconnection.
     */
    @Override
    public Subscription subscribe(ServiceKey key, Listener listener) {
        return subscriptions.subscribe(key, listener);
    }

    /** Subscriptions open now: each holds its providers until closed. */
    int subscriptionCount() {
        return subscriptions.size();
    }

    /**
     * This consumer's place among the consumers of its application ({@code application=}) that
     * subset {@code key}: the first call for a service writes an EPHEMERAL node for this consumer
     * under {@code {root}/consumers/{service}/{application}} and follows the others, on the
     * session's worker; it returns at once, and the place is null until known (docs/REGISTRY.md).
     */
    @Override
    public Supplier<PeerPosition> peers(ServiceKey key) {
        synchronized (peers) {
            if (closing.get()) {
                return () -> null;
            }
            return peers.computeIfAbsent(key, k -> {
                String service = URLEncoder.encode(k.toString(), StandardCharsets.UTF_8);
                PeerGroup g = new PeerGroup(session, rootPath + "/consumers/" + service + "/" + application, peerName);
                session.listen(g);
                g.start();
                return g;
            });
        }
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
        publisher.close();
        synchronized (peers) {
            peers.values().forEach(PeerGroup::close);
        }
        subscriptions.close();
        session.close();
        if (onClose != null) {
            onClose.run();
        }
    }
}
