package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-instance layout against a real ZooKeeper: one node per provider process whatever it
 * serves, revisions, the mapping, and a consumer that follows changes one at a time.
 */
@Timeout(90)
class InstanceLayoutTest {
    private TestingServer zk;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    private ZookeeperRegistry registry(ZookeeperSettings.Mode mode) {
        return new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withMode(mode, "shop")
                        .withSessionTimeout(Duration.ofSeconds(5))
                        .withConnectTimeout(Duration.ofSeconds(10))
                        .withRetry(Duration.ofMillis(100), 3)
                        // A short window: a consumer just back from an expiry holds departures for one.
                        .withShrinkGuard(0.5, Duration.ofSeconds(2)),
                zk.getConnectString(),
                null);
    }

    private static ServiceKey service(int i) {
        return new ServiceKey("com.acme.Service" + i, "1.0", "");
    }

    private static List<ServiceInstance> services(int count, int port) {
        List<ServiceInstance> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(new ServiceInstance(service(i), new Endpoint("127.0.0.1", port), 100, List.of("kryo"), Map.of()));
        }
        return all;
    }

    /** The ensemble's last transaction id: every write adds one. */
    private long zxid() throws Exception {
        Matcher m = Pattern.compile("Zxid: 0x([0-9a-f]+)")
                .matcher(FourLetterWordMain.send4LetterWord("127.0.0.1", zk.getPort(), "srvr"));
        assertThat(m.find()).as("srvr names the zxid").isTrue();
        return Long.parseLong(m.group(1), 16);
    }

    @Test
    void aProviderOfTwentyServicesRegistersWithOneWrite() throws Exception {
        try (ZookeeperRegistry first = registry(ZookeeperSettings.Mode.INSTANCE);
                ZookeeperRegistry second = registry(ZookeeperSettings.Mode.INSTANCE);
                CuratorFramework look =
                        CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100))) {
            look.start();
            first.registerAll(services(20, 20001));
            // The first of its revision writes the revision and the mapping once.
            assertThat(look.getChildren().forPath("/xrpc/apps/shop/revisions")).hasSize(1);
            assertThat(look.getChildren().forPath("/xrpc/mapping")).hasSize(20);
            long before = zxid();
            second.registerAll(services(20, 20002));
            // Before, a provider of 20 services wrote 20 nodes, each through its own create.
            assertThat(zxid() - before).as("writes of the second instance").isEqualTo(1);
            assertThat(look.getChildren().forPath("/xrpc/apps/shop/instances")).hasSize(2);
        }
    }

    @Test
    void aConsumerFollowsArrivalsDeparturesAndAServiceExportedLater() {
        try (ZookeeperRegistry consumer = registry(ZookeeperSettings.Mode.INSTANCE);
                ZookeeperRegistry a = registry(ZookeeperSettings.Mode.INSTANCE);
                ZookeeperRegistry b = registry(ZookeeperSettings.Mode.INSTANCE)) {
            a.registerAll(services(1, 20011));
            List<List<ServiceInstance>> seen0 = new CopyOnWriteArrayList<>();
            ServiceDiscovery.Subscription s0 = consumer.subscribe(service(0), seen0::add);
            ServiceDiscovery.Subscription s1 = consumer.subscribe(service(1), l -> {});
            assertThat(s0.instances()).extracting(i -> i.endpoint().port()).containsExactly(20011);
            assertThat(s1.instances()).isEmpty();

            b.registerAll(services(1, 20012));
            await().atMost(Duration.ofSeconds(10)).until(() -> s0.instances().size() == 2);

            // A's second service: a new revision, so a new node for A; service 0 keeps A all along.
            a.register(services(2, 20011).get(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> s1.instances().size() == 1);
            assertThat(s1.instances().get(0).endpoint().port()).isEqualTo(20011);
            assertThat(s1.instances().get(0).serializers()).containsExactly("kryo");
            // A third provider after A's old node was deleted (in the background): once the consumer
            // lists it, it has applied that deletion too (events come in order).
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> consumer.curator()
                                    .getChildren()
                                    .forPath(NodeCodec.instancesPath("/xrpc", "shop"))
                                    .size()
                            == 2);
            try (ZookeeperRegistry c = registry(ZookeeperSettings.Mode.INSTANCE)) {
                c.registerAll(services(1, 20013));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> s0.instances().size() == 3);
                assertThat(seen0)
                        .as("service 0's lists while A moved to its new revision")
                        .allMatch(l -> l.stream().anyMatch(i -> i.endpoint().port() == 20011));

                // A stops serving service 1 only: it leaves that list, not the other.
                a.unregister(services(2, 20011).get(1));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> s1.instances().isEmpty());
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> consumer.curator()
                                        .getChildren()
                                        .forPath(NodeCodec.instancesPath("/xrpc", "shop"))
                                        .size()
                                == 3);
                try (ZookeeperRegistry d = registry(ZookeeperSettings.Mode.INSTANCE)) {
                    d.registerAll(services(1, 20014));
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> s0.instances().size() == 4);
                }
                assertThat(seen0)
                        .as("service 0's lists while A moved back")
                        .allMatch(l -> l.stream().anyMatch(i -> i.endpoint().port() == 20011));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> s0.instances().size() == 2);
            assertThat(s0.instances()).hasSize(2);

            b.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> s0.instances().size() == 1);
        }
    }

    @Test
    void aConsumerWhoseSessionExpiredWatchesAgainAndMissesNothing() throws Exception {
        try (ZookeeperRegistry consumer = registry(ZookeeperSettings.Mode.INSTANCE);
                ZookeeperRegistry a = registry(ZookeeperSettings.Mode.INSTANCE)) {
            a.registerAll(services(1, 20021));
            ServiceDiscovery.Subscription s0 = consumer.subscribe(service(0), l -> {});
            assertThat(s0.instances()).hasSize(1);
            long session =
                    consumer.curator().getZookeeperClient().getZooKeeper().getSessionId();
            consumer.curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> consumer.isConnected()
                            && consumer.curator()
                                            .getZookeeperClient()
                                            .getZooKeeper()
                                            .getSessionId()
                                    != session);
            // Joins after the new session: seen only if the watch was set again on it.
            try (ZookeeperRegistry b = registry(ZookeeperSettings.Mode.INSTANCE)) {
                b.registerAll(services(1, 20022));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> s0.instances().size() == 2);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> s0.instances().size() == 1);
        }
    }

    @Test
    void modeAllReadsProvidersOfBothLayouts() {
        try (ZookeeperRegistry consumer = registry(ZookeeperSettings.Mode.ALL);
                ZookeeperRegistry old = registry(ZookeeperSettings.Mode.INTERFACE);
                ZookeeperRegistry moving = registry(ZookeeperSettings.Mode.ALL);
                ZookeeperRegistry moved = registry(ZookeeperSettings.Mode.INSTANCE);
                ZookeeperRegistry oldConsumer = registry(ZookeeperSettings.Mode.INTERFACE)) {
            old.registerAll(services(1, 20031));
            moving.registerAll(services(1, 20032));
            moved.registerAll(services(1, 20033));
            ServiceDiscovery.Subscription all = consumer.subscribe(service(0), l -> {});
            await().atMost(Duration.ofSeconds(10)).until(() -> all.instances().size() == 3);
            // A consumer of the old layout sees every provider that still writes it.
            ServiceDiscovery.Subscription legacy = oldConsumer.subscribe(service(0), l -> {});
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> legacy.instances().size() == 2);
            moving.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> all.instances().size() == 2);
        }
    }
}
