package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a consumer applies the per-instance layout's events, with the nodes written by hand as a
 * provider in the middle of a revision change, two applications sharing an address, or a failing
 * listener would leave them.
 */
@Timeout(60)
class InstanceDirectoryTest {
    private static final ServiceKey KEY = new ServiceKey("com.acme.Orders", "1.0", "");
    private static final Endpoint A = new Endpoint("10.0.0.7", 20880);

    private TestingServer zk;
    private CuratorFramework writer;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer(true);
        writer = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
        writer.start();
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        zk.close();
    }

    private ZookeeperRegistry consumer() {
        return new ZookeeperRegistry(ZookeeperSettings.defaults().withConnectTimeout(Duration.ofSeconds(10))
                .withEmptyListGrace(Duration.ZERO), zk.getConnectString(), null);
    }

    /** Writes a revision of {@code app} serving KEY with {@code weight}, and maps KEY to the app; returns it. */
    private String revision(String app, int weight) throws Exception {
        byte[] content = NodeCodec.encodeRevision(List.of(new ServiceInstance(KEY, A, weight, List.of(), Map.of())));
        String id = NodeCodec.revisionOf(content);
        if (writer.checkExists().forPath(NodeCodec.revisionPath("/xrpc", app, id)) == null) {
            writer.create().creatingParentsIfNeeded().forPath(NodeCodec.revisionPath("/xrpc", app, id), content);
        }
        if (writer.checkExists().forPath(NodeCodec.mappingPath("/xrpc", KEY.interfaceName()) + "/" + app) == null) {
            writer.create().creatingParentsIfNeeded().forPath(NodeCodec.mappingPath("/xrpc", KEY.interfaceName()) + "/" + app);
        }
        return id;
    }

    private String node(String app, String revision) {
        return NodeCodec.instancesPath("/xrpc", app) + "/" + NodeCodec.instanceName(A, revision);
    }

    /** A's weight in the list, -1 when A is not listed. */
    private static int weightOf(ServiceDiscovery.Subscription s) {
        return s.instances().stream().filter(i -> i.endpoint().equals(A)).mapToInt(ServiceInstance::weight)
                .findFirst().orElse(-1);
    }

    /**
     * Another address arriving, and waited for: the consumer applies events in order, so what came
     * before it is applied too.
     */
    private void barrier(ServiceDiscovery.Subscription s, String app, String revision, int expectedSize) throws Exception {
        writer.create().creatingParentsIfNeeded().forPath(NodeCodec.instancesPath("/xrpc", app) + "/"
                + NodeCodec.instanceName(new Endpoint("10.0.0." + (100 + expectedSize), 20880), revision));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.instances().size() == expectedSize);
    }

    @Test
    void anAddressWithTwoNodesLeavesOnlyWithTheLast() throws Exception {
        String r1 = revision("shop", 100);
        String r2 = revision("shop", 200);
        writer.create().creatingParentsIfNeeded().forPath(NodeCodec.instancesPath("/xrpc", "shop"));
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> { });
            // A revision change as providers make it: the new node first, then the old one deleted.
            writer.create().forPath(node("shop", r1));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 100);
            writer.create().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 200);
            writer.delete().forPath(node("shop", r1));
            barrier(s, "shop", r1, 2);
            assertThat(weightOf(s)).as("the old node's deletion is not a departure").isEqualTo(200);
            writer.delete().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == -1);

            // The other way round: the newer node goes first; the older one then serves again.
            writer.create().forPath(node("shop", r1));
            writer.create().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 200);
            writer.delete().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 100);
            writer.delete().forPath(node("shop", r1));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == -1);
        }
    }

    @Test
    void anAddressListedByTwoApplicationsStaysWhileEitherListsIt() throws Exception {
        String rShop = revision("shop", 100);
        String rBilling = revision("billing", 300);
        writer.create().creatingParentsIfNeeded().forPath(node("shop", rShop));
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> { });
            assertThat(weightOf(s)).isEqualTo(100);
            // The address reused by another application's process, before the first one's session ended.
            writer.create().creatingParentsIfNeeded().forPath(node("billing", rBilling));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 300);
            writer.delete().forPath(node("shop", rShop));
            barrier(s, "shop", rShop, 2);
            assertThat(weightOf(s)).as("A, still listed by billing").isEqualTo(300);
        }
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheOthers() throws Exception {
        String r = revision("shop", 100);
        writer.create().creatingParentsIfNeeded().forPath(NodeCodec.instancesPath("/xrpc", "shop"));
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription failing = consumer.subscribe(KEY, l -> {
                throw new IllegalStateException("a listener's bug");
            });
            ServiceDiscovery.Subscription other = consumer.subscribe(KEY, l -> { });
            writer.create().forPath(node("shop", r));
            await().atMost(Duration.ofSeconds(10)).until(() -> other.instances().size() == 1);
            assertThat(failing.instances()).hasSize(1);
            writer.delete().forPath(node("shop", r));
            await().atMost(Duration.ofSeconds(10)).until(() -> other.instances().isEmpty());
            assertThat(failing.instances()).isEmpty();
        }
    }
}
