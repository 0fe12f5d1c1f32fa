package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.GenericService;
import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ZooKeeper registry against a real in-process ZooKeeper (curator-test's TestingServer). */
class ZookeeperRegistryTest {
    private static final ServiceKey KEY = ServiceKey.of(GateService.class, "1.0", "blue");

    private TestingServer zk;

    @BeforeEach
    void startZooKeeper() throws Exception {
        zk = new TestingServer(true);
    }

    @AfterEach
    void stopZooKeeper() throws Exception {
        zk.close();
    }

    private ZookeeperRegistry registry(Duration sessionTimeout) {
        return new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withSessionTimeout(sessionTimeout)
                        .withConnectTimeout(Duration.ofSeconds(10))
                        .withRetry(Duration.ofMillis(100), 3),
                zk.getConnectString(),
                null);
    }

    private ZookeeperRegistry registry() {
        return registry(Duration.ofSeconds(5));
    }

    private static ServiceInstance instance(ServiceKey key, int port) {
        return new ServiceInstance(key, new Endpoint("127.0.0.1", port), 150, List.of("kryo"), Map.of("zone", "eu 1"));
    }

    private CuratorFramework inspector() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
        c.start();
        return c;
    }

    /** {@code registered} as a consumer of the per-instance layout sees it: shared between services, without a key. */
    private static ServiceInstance discovered(ServiceInstance registered) {
        return ServiceInstance.shared(registered.endpoint(), registered);
    }

    @Test
    void registersDiscoversAndUnregistersWithVersionAndGroupIsolation() {
        try (ZookeeperRegistry provider = registry();
                ZookeeperRegistry consumer = registry()) {
            ServiceDiscovery.Subscription blue = consumer.subscribe(KEY, l -> {});
            ServiceDiscovery.Subscription otherVersion =
                    consumer.subscribe(ServiceKey.of(GateService.class, "2.0", "blue"), l -> {});
            ServiceDiscovery.Subscription otherGroup =
                    consumer.subscribe(ServiceKey.of(GateService.class, "1.0", "green"), l -> {});
            ServiceInstance one = instance(KEY, 20001);
            provider.register(one);
            provider.register(instance(ServiceKey.of(GateService.class, "2.0", "blue"), 20002));
            await().atMost(Duration.ofSeconds(10)).until(() -> blue.instances().size() == 1);
            ServiceInstance seen = blue.instances().get(0);
            assertThat(seen).as("what it says of the service, shared: no key").isEqualTo(discovered(one));
            assertThat(seen.metadata()).containsEntry("zone", "eu 1");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> otherVersion.instances().size() == 1);
            assertThat(otherVersion.instances().get(0).endpoint().port()).isEqualTo(20002);
            assertThat(otherGroup.instances()).isEmpty();

            provider.unregister(one);
            await().atMost(Duration.ofSeconds(10)).until(() -> blue.instances().isEmpty());
            assertThat(otherVersion.instances()).hasSize(1);
        }
    }

    @Test
    void aNewSubscriptionKnowsTheRegisteredProvidersWhenItReturns() {
        try (ZookeeperRegistry provider = registry();
                ZookeeperRegistry consumer = registry()) {
            ServiceInstance one = instance(KEY, 20007);
            provider.register(one);
            // No waiting: a reference made right after subscribing must be able to call at once.
            assertThat(consumer.subscribe(KEY, l -> {}).instances()).containsExactly(discovered(one));
        }
    }

    @Test
    void providerDisappearsAtOnceOnCleanShutdown() {
        try (ZookeeperRegistry consumer = registry()) {
            ServiceDiscovery.Subscription sub = consumer.subscribe(KEY, l -> {});
            RpcServer server = RpcServer.builder()
                    .host("127.0.0.1")
                    .registry(registry())
                    .service(
                            GateService.class,
                            new GateServiceImpl(),
                            ServiceOptions.builder()
                                    .version("1.0")
                                    .group("blue")
                                    .build())
                    .build()
                    .start();
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 1);
            assertThat(sub.instances().get(0).endpoint()).isEqualTo(server.advertisedEndpoint());
            long start = System.nanoTime();
            server.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().isEmpty());
            System.out.printf(
                    "clean shutdown: provider gone from the consumer's list after %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    @Test
    @Timeout(60)
    void theRegistryListsTheInterfacesOfBothLayouts() throws Exception {
        try (ZookeeperRegistry empty = registry()) {
            assertThat(empty.interfaceNames())
                    .as("nothing registered yet: no root node")
                    .isEmpty();
        }
        ServiceKey other = ServiceKey.of(GateService.class, "", "");
        try (ZookeeperRegistry perInstance = registry();
                ZookeeperRegistry perService = new ZookeeperRegistry(
                        ZookeeperSettings.defaults()
                                .withConnectTimeout(Duration.ofSeconds(10))
                                .withMode(ZookeeperSettings.Mode.INTERFACE, "legacy"),
                        zk.getConnectString(),
                        null);
                ZookeeperRegistry reader = registry()) {
            perInstance.register(instance(KEY, 20300));
            perService.register(instance(new ServiceKey("com.acme.Legacy", "", ""), 20301));
            assertThat(reader.interfaceNames()).containsExactly("com.acme.Legacy", other.interfaceName());
        }
    }

    @Test
    @Timeout(60)
    void aGenericReferenceFindsItsProvidersInTheRegistryAndFailsOverAsATypedOneDoes() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort(); // nothing listens there once closed
        }
        try (ZookeeperRegistry consumerRegistry = registry();
                ZookeeperRegistry providerRegistry = registry();
                ZookeeperRegistry ghostRegistry = registry();
                RpcClient client =
                        RpcClient.builder().registry(consumerRegistry).build();
                RpcServer a = RpcServer.builder()
                        .host("127.0.0.1")
                        .registry(providerRegistry)
                        .service(
                                GateService.class,
                                new GateServiceImpl("a"),
                                ServiceOptions.builder()
                                        .version("1.0")
                                        .group("blue")
                                        .build())
                        .build()
                        .start()) {
            // A provider that died without its node going (a frozen session): its connects fail.
            ghostRegistry.register(new ServiceInstance(KEY, new Endpoint("127.0.0.1", dead), 100, List.of(), Map.of()));
            GenericService gate = client.generic(
                    GateService.class.getName(),
                    ReferenceOptions.builder()
                            .version("1.0")
                            .group("blue")
                            .retries(2)
                            .loadBalancer("round-robin")
                            .build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> "a".equals(gate.invoke("whoAmI", List.of(), List.of())));
            for (int i = 0; i < 10; i++) {
                assertThat(gate.invoke("quick", List.of("java.lang.String"), List.of("t" + i)))
                        .as("a connect that failed is retried on the other provider")
                        .isEqualTo("t" + i);
            }
        }
    }

    @Test
    @Timeout(60)
    void aStoppingProviderWaitsForItsConsumersToLeaveNotForTheWholeUnregisterDelay() {
        // Before, close() slept the unregister delay whatever the consumers did: ten minutes here.
        // Now it waits until the consumers, seeing it leave the registry, closed their connections.
        try (ZookeeperRegistry consumerRegistry = registry();
                ZookeeperRegistry providerRegistry = registry();
                RpcClient client =
                        RpcClient.builder().registry(consumerRegistry).build();
                RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .registry(providerRegistry)
                        .unregisterDelay(Duration.ofMinutes(10))
                        .service(
                                GateService.class,
                                new GateServiceImpl("leaving"),
                                ServiceOptions.builder()
                                        .version("1.0")
                                        .group("blue")
                                        .build())
                        .build()
                        .start()) {
            GateService gate = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder().version("1.0").group("blue").build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> gate.whoAmI().equals("leaving"));
            assertThat(client.openConnections()).isEqualTo(1);
            server.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.openConnections() == 0);
            assertThat(server.isRunning()).isFalse();
        }
    }

    @Test
    @Timeout(60)
    void manyProvidersVanishingAtOnceAreHeldUntilTheRegistryIsStable() {
        // Before, a consumer published every shrunken list at once: three of four providers gone
        // in one ZooKeeper event (an outage expiring their sessions) left one to take every call.
        Duration window = Duration.ofSeconds(2);
        List<ZookeeperRegistry> providers = new ArrayList<>();
        try (ZookeeperRegistry consumer = new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withConnectTimeout(Duration.ofSeconds(10))
                        .withShrinkGuard(0.5, window),
                zk.getConnectString(),
                null)) {
            for (int i = 0; i < 4; i++) {
                ZookeeperRegistry p = registry();
                providers.add(p);
                p.register(instance(KEY, 20100 + i));
            }
            ServiceDiscovery.Subscription sub = consumer.subscribe(KEY, l -> {});
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 4);
            for (int i = 1; i < 4; i++) {
                providers.get(i).close(); // the session ends: ZooKeeper deletes its node at once
            }
            CuratorFramework look = inspector();
            try (look) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() ->
                                look.getChildren().forPath(Nodes.instancesDir()).size() == 1);
            }
            // The registry lists one; the consumer keeps all four until it has been stable for the window.
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 4);
            await().atMost(window.multipliedBy(5)).until(() -> sub.instances().size() == 1);
            assertThat(sub.instances().get(0).endpoint().port()).isEqualTo(20100);
        } finally {
            providers.forEach(ZookeeperRegistry::close);
        }
    }

    @Test
    void oneProviderLeavingIsNotHeld() {
        try (ZookeeperRegistry consumer = new ZookeeperRegistry(
                        ZookeeperSettings.defaults()
                                .withConnectTimeout(Duration.ofSeconds(10))
                                .withShrinkGuard(0.5, Duration.ofMinutes(10)),
                        zk.getConnectString(),
                        null);
                ZookeeperRegistry staying = registry()) {
            staying.register(instance(KEY, 20110));
            ZookeeperRegistry leaving = registry();
            leaving.register(instance(KEY, 20111));
            ServiceDiscovery.Subscription sub = consumer.subscribe(KEY, l -> {});
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 2);
            leaving.close();
            // A ten-minute window: were the departure held, this would time out.
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 1);
        }
    }

    @Test
    void afterSessionExpiryTheProviderRegistersAgain() throws Exception {
        try (ZookeeperRegistry provider = registry();
                ZookeeperRegistry consumer = registry();
                CuratorFramework look = inspector()) {
            ServiceInstance one = instance(KEY, 20003);
            provider.register(one);
            String path = Nodes.node(one);
            long firstSession = look.checkExists().forPath(path).getEphemeralOwner();
            ServiceDiscovery.Subscription sub = consumer.subscribe(KEY, l -> {});
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 1);

            provider.curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();

            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Stat s = look.checkExists().forPath(path);
                return s != null && s.getEphemeralOwner() != firstSession;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().equals(List.of(discovered(one))));
        }
    }

    /**
     * Issue 41: each registry costs threads, and threads are pids (32,768 on the scale tool's
     * machine). A provider that subscribes to nothing starts no discovery thread, not even when
     * its session is replaced (a reconnect used to start one to read again what it never followed).
     */
    @Test
    void aProviderKeepsNoDiscoveryThreadThroughASessionExpiry() throws Exception {
        try (ZookeeperRegistry provider = registry();
                CuratorFramework look = inspector()) {
            ServiceInstance one = instance(KEY, 20009);
            provider.register(one);
            String path = Nodes.node(one);
            long firstSession = look.checkExists().forPath(path).getEphemeralOwner();
            provider.curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Stat s = look.checkExists().forPath(path);
                return s != null && s.getEphemeralOwner() != firstSession;
            });
            String name = "xrpc-discovery-" + provider.connectString();
            assertThat(Thread.getAllStackTraces().keySet())
                    .as("threads of this registry's discovery")
                    .noneMatch(t -> t.getName().equals(name));
        }
    }

    @Test
    void nodeLeftByAnEarlierSessionIsReplaced() throws Exception {
        ServiceInstance one = instance(KEY, 20004);
        String path = Nodes.node(one);
        try (CuratorFramework old = inspector();
                ZookeeperRegistry provider = registry()) {
            old.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path, "weight=1".getBytes());
            long oldSession = old.getZookeeperClient().getZooKeeper().getSessionId();
            provider.register(one);
            Stat stat = provider.curator().checkExists().forPath(path);
            assertThat(stat.getEphemeralOwner())
                    .isNotEqualTo(oldSession)
                    .isEqualTo(provider.curator()
                            .getZookeeperClient()
                            .getZooKeeper()
                            .getSessionId());
            // The node is the provider's own: its data (none in this layout) replaced the old session's.
            assertThat(provider.curator().getData().forPath(path)).isEmpty();
            assertThat(new String(
                            provider.curator()
                                    .getData()
                                    .forPath(NodeCodec.revisionPath(
                                            "/xrpc", ZookeeperSettings.DEFAULT_APPLICATION, Nodes.revision(one))),
                            StandardCharsets.UTF_8))
                    .contains("weight=150");
        }
    }

    @Test
    void nodeDeletedByHandComesBack() throws Exception {
        ServiceInstance one = instance(KEY, 20005);
        String path = Nodes.node(one);
        try (ZookeeperRegistry provider = registry();
                CuratorFramework look = inspector()) {
            provider.register(one);
            look.delete().forPath(path);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> look.checkExists().forPath(path) != null);
            provider.unregister(one);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> look.checkExists().forPath(path) == null);
        }
    }

    @Test
    void callsGoOnWhileZooKeeperIsDownAndRegistrationsReturnWhenItIsBack() throws Exception {
        GateServiceImpl impl = new GateServiceImpl("p");
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .registry(registry(Duration.ofSeconds(30)))
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder()
                        .registry(registry(Duration.ofSeconds(30)))
                        .build();
                CuratorFramework look = inspector()) {
            GateService s =
                    client.proxy(GateService.class, ReferenceOptions.builder().build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(RpcException.class)
                    .until(() -> "p".equals(s.whoAmI()));

            zk.stop();
            for (int i = 0; i < 200; i++) {
                assertThat(s.whoAmI()).isEqualTo("p");
            }

            zk.restart();
            String path = Nodes.node(
                    ServiceInstance.of(ServiceKey.of(GateService.class, "", ""), server.advertisedEndpoint()));
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> look.checkExists().forPath(path) != null);
            assertThat(s.whoAmI()).isEqualTo("p");
        }
    }

    @Test
    void registeringAndUnregisteringDoNotBlockWhileZooKeeperIsDown() throws Exception {
        ServiceInstance stays = instance(KEY, 20008);
        ServiceInstance leaves = instance(KEY, 20009);
        ServiceInstance arrives = instance(KEY, 20010);
        try (ZookeeperRegistry provider = registry(Duration.ofSeconds(30));
                CuratorFramework look = inspector()) {
            provider.register(stays);
            provider.register(leaves);
            zk.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> !provider.isConnected());
            // Each of these used to wait out the connect timeout per retry: minutes in all.
            Assertions.assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                provider.unregister(leaves);
                provider.register(arrives);
            });
            zk.restart();
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> look.checkExists().forPath(Nodes.node(arrives)) != null
                            && look.checkExists().forPath(Nodes.node(leaves)) == null
                            && look.checkExists().forPath(Nodes.node(stays)) != null);
        }
    }

    @Test
    void aCallWithNoProviderNamesTheServiceKey() {
        try (RpcClient client = RpcClient.builder().registry(registry()).build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder().version("1.0").group("blue").build());
            assertThatThrownBy(s::whoAmI).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
                assertThat(e.getMessage())
                        .isEqualTo("no provider for blue/" + GateService.class.getName() + ":1.0 in the registry");
            });
        }
    }

    /** A service kryo cannot carry: a client's type check refuses to reference it. */
    public interface Patterns {
        Pattern compile(String regex);
    }

    @Test
    void aReferenceRefusedByItsTypeCheckLeavesNoSubscriptionOpen() {
        try (ZookeeperRegistry consumer = registry();
                RpcClient client = RpcClient.builder()
                        .registry(consumer)
                        .typeCheck(TypeCheck.Mode.FAIL)
                        .build()) {
            assertThatThrownBy(() -> client.proxy(
                            Patterns.class, ReferenceOptions.builder().build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("kryo cannot carry java.util.regex.Pattern");
            assertThat(consumer.subscriptionCount())
                    .as("subscriptions left open")
                    .isZero();
        }
    }

    @Test
    @Timeout(90)
    void providerKilledWithoutWarningDisappearsWithinTheSessionTimeout() throws Exception {
        long sessionMs = 3000;
        try (ForkedJvm child = new ForkedJvm(ProviderProcess.class, zk.getConnectString(), Long.toString(sessionMs));
                ZookeeperRegistry consumer = registry()) {
            int port = child.port();
            ServiceDiscovery.Subscription sub = consumer.subscribe(ServiceKey.of(GateService.class, "", ""), l -> {});
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 1);
            assertThat(sub.instances().get(0).endpoint().port()).isEqualTo(port);

            long start = System.nanoTime();
            child.kill();
            await().atMost(Duration.ofMillis(sessionMs * 4))
                    .until(() -> sub.instances().isEmpty());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf(
                    "killed provider: gone from the consumer's list after %d ms (session timeout %d ms)%n",
                    ms, sessionMs);
        }
    }

    @Test
    void embeddedAddressesShareOneInProcessZooKeeper() {
        try (Registry a = Registries.create("embedded");
                Registry b = Registries.create("embedded")) {
            assertThat(((ZookeeperRegistry) a).connectString())
                    .isEqualTo(((ZookeeperRegistry) b).connectString())
                    .startsWith("127.0.0.1:");
            ServiceDiscovery.Subscription sub = b.subscribe(KEY, l -> {});
            a.register(instance(KEY, 20006));
            await().atMost(Duration.ofSeconds(10)).until(() -> sub.instances().size() == 1);
        }
        assertThatThrownBy(() -> Registries.create("etcd://127.0.0.1:2379"))
                .hasMessage("registry scheme: etcd (expected one of [embedded, zookeeper], found with ServiceLoader)");
    }

    @Test
    void ipv6LoopbackProvidersWork() {
        try (RpcServer server = RpcServer.builder()
                        .host("::1")
                        .registry(registry())
                        .service(GateService.class, new GateServiceImpl("v6"))
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().registry(registry()).build()) {
            assertThat(server.advertisedEndpoint().toString()).startsWith("[::1]:");
            GateService s =
                    client.proxy(GateService.class, ReferenceOptions.builder().build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(RpcException.class)
                    .until(() -> "v6".equals(s.whoAmI()));
        }
    }
}
