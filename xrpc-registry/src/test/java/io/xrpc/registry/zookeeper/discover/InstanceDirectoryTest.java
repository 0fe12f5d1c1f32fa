package io.xrpc.registry.zookeeper.discover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.ZookeeperRegistry;
import io.xrpc.registry.zookeeper.ZookeeperSettings;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
        return new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withConnectTimeout(Duration.ofSeconds(10))
                        .withEmptyListGrace(Duration.ZERO),
                zk.getConnectString(),
                null);
    }

    /** Writes a revision of {@code app} serving KEY with {@code weight}, and maps KEY to the app; returns it. */
    private String revision(String app, int weight) throws Exception {
        byte[] content = NodeCodec.encodeRevision(List.of(new ServiceInstance(KEY, A, weight, List.of(), Map.of())));
        String id = NodeCodec.revisionOf(content);
        if (writer.checkExists().forPath(NodeCodec.revisionPath("/xrpc", app, id)) == null) {
            writer.create().creatingParentsIfNeeded().forPath(NodeCodec.revisionPath("/xrpc", app, id), content);
        }
        if (writer.checkExists().forPath(NodeCodec.mappingPath("/xrpc", KEY.interfaceName()) + "/" + app) == null) {
            writer.create()
                    .creatingParentsIfNeeded()
                    .forPath(NodeCodec.mappingPath("/xrpc", KEY.interfaceName()) + "/" + app);
        }
        return id;
    }

    private String node(String app, String revision) {
        return NodeCodec.instancesPath("/xrpc", app) + "/" + NodeCodec.instanceName(A, revision);
    }

    /** A's weight in the list, -1 when A is not listed. */
    private static int weightOf(ServiceDiscovery.Subscription s) {
        return s.instances().stream()
                .filter(i -> i.endpoint().equals(A))
                .mapToInt(ServiceInstance::weight)
                .findFirst()
                .orElse(-1);
    }

    /**
     * Another address arriving, and waited for: the consumer applies events in order, so what came
     * before it is applied too.
     */
    private void barrier(ServiceDiscovery.Subscription s, String app, String revision, int expectedSize)
            throws Exception {
        writer.create()
                .creatingParentsIfNeeded()
                .forPath(NodeCodec.instancesPath("/xrpc", app) + "/"
                        + NodeCodec.instanceName(new Endpoint("10.0.0." + (100 + expectedSize), 20880), revision));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.instances().size() == expectedSize);
    }

    /** Deletes {@code path} as a provider that stops does: the leaving mark first (NodeKeeper.LEAVING). */
    private void leave(String path) throws Exception {
        writer.setData().forPath(path, "leaving".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        writer.delete().forPath(path);
    }

    @Test
    void anAddressWithTwoNodesLeavesOnlyWithTheLast() throws Exception {
        String r1 = revision("shop", 100);
        String r2 = revision("shop", 200);
        writer.create().creatingParentsIfNeeded().forPath(NodeCodec.instancesPath("/xrpc", "shop"));
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> {});
            // A revision change as providers make it: the new node first, then the old one deleted.
            writer.create().forPath(node("shop", r1));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 100);
            writer.create().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 200);
            writer.delete().forPath(node("shop", r1));
            barrier(s, "shop", r1, 2);
            assertThat(weightOf(s))
                    .as("the old node's deletion is not a departure")
                    .isEqualTo(200);
            leave(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == -1);

            // The other way round: the newer node goes first; the older one then serves again.
            writer.create().forPath(node("shop", r1));
            writer.create().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 200);
            writer.delete().forPath(node("shop", r2));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == 100);
            leave(node("shop", r1));
            await().atMost(Duration.ofSeconds(10)).until(() -> weightOf(s) == -1);
        }
    }

    @Test
    void anAddressListedByTwoApplicationsStaysWhileEitherListsIt() throws Exception {
        String rShop = revision("shop", 100);
        String rBilling = revision("billing", 300);
        writer.create().creatingParentsIfNeeded().forPath(node("shop", rShop));
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> {});
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
            List<List<ServiceInstance>> told = new CopyOnWriteArrayList<>();
            ServiceDiscovery.Subscription other = consumer.subscribe(KEY, told::add);
            writer.create().forPath(node("shop", r));
            // The other listener is told, after the failing one was (both follow the same application).
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !told.isEmpty() && told.get(told.size() - 1).size() == 1);
            assertThat(failing.instances()).hasSize(1);
            leave(node("shop", r));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> told.get(told.size() - 1).isEmpty());
            assertThat(failing.instances()).isEmpty();
            assertThat(other.instances()).isEmpty();
        }
    }

    /**
     * What anyone who can write an open registry can put there: names that are not instances, a
     * revision that is not what its name says, a megabyte of garbage, and more applications than a
     * consumer follows. The consumer lists the real instance and none of the first three, and follows
     * at most 64 applications. (Which 64, without credentials, is ZooKeeper's order: an open registry cannot
     * tell the real ones; with credentials only proven applications count, see RegistryAclTest.)
     */
    @Test
    void whatAWriterOfTheRegistryPlantsCostsAConsumerNothing() throws Exception {
        String real = revision("shop", 100);
        writer.create().creatingParentsIfNeeded().forPath(node("shop", real));
        String dir = NodeCodec.instancesPath("/xrpc", "shop");
        for (String name : List.of(
                "10.0.0.9:20880",
                "10.0.0.9:20880@",
                "10.0.0.9:20880@" + "g".repeat(32),
                "10.0.0.9:20880@" + real.toUpperCase(Locale.ROOT),
                "not-an-address@" + real,
                "x".repeat(1000) + "@" + real,
                "10.0.0.9:99999@" + real)) {
            writer.create().forPath(dir + "/" + name);
        }
        // A name whose revision's content does not hash to it, and one with a megabyte of garbage.
        String forged = "0123456789abcdef0123456789abcdef";
        writer.create()
                .forPath(
                        NodeCodec.revisionPath("/xrpc", "shop", forged),
                        NodeCodec.encodeRevision(List.of(new ServiceInstance(KEY, A, 10_000, List.of(), Map.of()))));
        writer.create().forPath(dir + "/" + NodeCodec.instanceName(new Endpoint("10.0.0.10", 20880), forged));
        String big = "fedcba9876543210fedcba9876543210";
        writer.create().forPath(NodeCodec.revisionPath("/xrpc", "shop", big), new byte[1_000_000]);
        writer.create().forPath(dir + "/" + NodeCodec.instanceName(new Endpoint("10.0.0.11", 20880), big));
        try (ZookeeperRegistry consumer = consumer()) {
            // The application with the planted names alone: only the real instance is listed.
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> {});
            assertThat(s.instances()).extracting(ServiceInstance::endpoint).containsExactly(A);
            assertThat(s.instances().get(0).weight()).isEqualTo(100);
        }
        // Two hundred applications mapped to the interface, each with an instance.
        String mapping = NodeCodec.mappingPath("/xrpc", KEY.interfaceName());
        for (int i = 0; i < 200; i++) {
            String app = "fake" + i;
            writer.create().forPath(mapping + "/" + app);
            String r = revision(app, 100);
            writer.create()
                    .creatingParentsIfNeeded()
                    .forPath(NodeCodec.instancesPath("/xrpc", app) + "/"
                            + NodeCodec.instanceName(new Endpoint("10.1." + (i / 250) + "." + (i % 250), 20880), r));
        }
        try (ZookeeperRegistry consumer = consumer()) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, l -> {});
            assertThat(consumer.describe().get("applications"))
                    .as("applications followed")
                    .isEqualTo(InstanceDirectory.MAX_APPS_PER_INTERFACE);
            assertThat(s.instances())
                    .as("one instance per followed application")
                    .hasSize(InstanceDirectory.MAX_APPS_PER_INTERFACE);
            assertThat(s.instances())
                    .noneMatch(i -> i.weight() == 10_000)
                    .noneMatch(i -> i.endpoint().host().equals("10.0.0.9")
                            || i.endpoint().host().equals("10.0.0.11"));
        }
    }

    /**
     * A consumer of 20 services that the same instances serve alike holds one list and one entry
     * per instance, not 20 (issue 41: 1,239 bytes an instance before, 61 of them per list entry):
     * the 20 subscriptions show the same list object, through arrivals and departures.
     */
    @Test
    void servicesServedAlikeShareOneListAndOneEntryPerInstance() throws Exception {
        List<ServiceKey> keys = new java.util.ArrayList<>();
        List<ServiceInstance> served = new java.util.ArrayList<>();
        for (int k = 0; k < 20; k++) {
            ServiceKey key = new ServiceKey("com.acme.S" + k, "1.0", "");
            keys.add(key);
            served.add(new ServiceInstance(key, A, 100, List.of("kryo"), Map.of("zone", "eu-1")));
        }
        byte[] content = NodeCodec.encodeRevision(served);
        String r = NodeCodec.revisionOf(content);
        writer.create().creatingParentsIfNeeded().forPath(NodeCodec.revisionPath("/xrpc", "shop", r), content);
        for (ServiceKey k : keys) {
            writer.create()
                    .creatingParentsIfNeeded()
                    .forPath(NodeCodec.mappingPath("/xrpc", k.interfaceName()) + "/shop");
        }
        String dir = NodeCodec.instancesPath("/xrpc", "shop");
        for (int i = 0; i < 50; i++) {
            writer.create()
                    .creatingParentsIfNeeded()
                    .forPath(dir + "/" + NodeCodec.instanceName(new Endpoint("10.2.0." + i, 20880), r));
        }
        try (ZookeeperRegistry consumer = consumer()) {
            List<ServiceDiscovery.Subscription> subs = new java.util.ArrayList<>();
            for (ServiceKey k : keys) {
                subs.add(consumer.subscribe(k, l -> {}));
            }
            assertThat(subs.get(0).instances()).hasSize(50);
            assertThat(subs)
                    .allSatisfy(
                            s -> assertThat(s.instances()).isSameAs(subs.get(0).instances()));
            assertThat(subs.get(0).instances())
                    .allSatisfy(i -> assertThat(i.serviceKey())
                            .as("shared: no one service's key")
                            .isNull())
                    .allSatisfy(i -> assertThat(i.metadata()).containsEntry("zone", "eu-1"));

            writer.create().forPath(dir + "/" + NodeCodec.instanceName(new Endpoint("10.2.1.1", 20880), r));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> subs.stream().allMatch(s -> s.instances().size() == 51));
            assertThat(subs)
                    .allSatisfy(
                            s -> assertThat(s.instances()).isSameAs(subs.get(0).instances()));

            leave(dir + "/" + NodeCodec.instanceName(new Endpoint("10.2.0.7", 20880), r));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> subs.stream().allMatch(s -> s.instances().size() == 50));
            assertThat(subs)
                    .allSatisfy(
                            s -> assertThat(s.instances()).isSameAs(subs.get(0).instances()));
            assertThat(subs.get(0).instances())
                    .extracting(ServiceInstance::endpoint)
                    .doesNotContain(new Endpoint("10.2.0.7", 20880))
                    .contains(new Endpoint("10.2.1.1", 20880))
                    .doesNotHaveDuplicates();
        }
    }

    /**
     * Issue 41: after a storm, providers whose sessions expired replaced their nodes 34-42 s after
     * the kill, and consumers published each deletion before its creation (116,800 list dips).
     * After an outage, a node that goes with its session is held until its provider writes it
     * again; one that goes with the leaving mark (a provider stopping) is a departure at once; one
     * that never comes back is let go once the registry has been stable for the guard's window.
     * (Outside an outage a session's end is believed at once:
     * {@code ZookeeperRegistryTest.providerKilledWithoutWarningDisappearsWithinTheSessionTimeout}.)
     */
    @Test
    void aNodeGoneWithItsSessionIsHeldUntilItComesBackAndALeavingOneGoesAtOnce() throws Exception {
        String r = revision("shop", 100);
        String dir = NodeCodec.instancesPath("/xrpc", "shop");
        writer.create().creatingParentsIfNeeded().forPath(dir);
        Endpoint b = new Endpoint("10.0.0.8", 20880);
        String nodeB = dir + "/" + NodeCodec.instanceName(b, r);
        writer.create().forPath(nodeB); // stays: the list is never empty
        List<List<ServiceInstance>> seen = new CopyOnWriteArrayList<>();
        try (ZookeeperRegistry consumer = new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withConnectTimeout(Duration.ofSeconds(10))
                        .withEmptyListGrace(Duration.ZERO)
                        .withShrinkGuard(0.5, Duration.ofSeconds(5)),
                zk.getConnectString(),
                null)) {
            ServiceDiscovery.Subscription s = consumer.subscribe(KEY, seen::add);
            // A's provider: a session of its own, which ends without the provider leaving.
            CuratorFramework provider = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100));
            provider.start();
            provider.create()
                    .withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
                    .forPath(node("shop", r));
            await().atMost(Duration.ofSeconds(10)).until(() -> s.instances().size() == 2);
            // An outage: every client reconnects (the sessions survive a short one).
            zk.restart();
            await().atMost(Duration.ofSeconds(20)).until(consumer::isConnected);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> provider.getZookeeperClient().isConnected());
            seen.clear();
            provider.close(); // the session ends: ZooKeeper deletes the node, unmarked
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> writer.checkExists().forPath(node("shop", r)) == null);
            barrier(s, "shop", r, 3);
            // Its next session writes it again.
            writer.create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath(node("shop", r));
            barrier(s, "shop", r, 4);
            assertThat(seen)
                    .as("no list published without A while its session was replaced")
                    .allSatisfy(l ->
                            assertThat(l).extracting(ServiceInstance::endpoint).contains(A));

            // Leaving: the mark, then the deletion: gone at once.
            leave(node("shop", r));
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            s.instances().stream().noneMatch(i -> i.endpoint().equals(A)));

            // Gone with its session and never back: let go after the window of quiet (5 s here).
            writer.create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath(node("shop", r));
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            s.instances().stream().anyMatch(i -> i.endpoint().equals(A)));
            writer.delete().forPath(node("shop", r));
            long gone = System.nanoTime();
            barrier(s, "shop", r, 5); // applied, and A still held
            assertThat(s.instances()).extracting(ServiceInstance::endpoint).contains(A);
            await().atMost(Duration.ofSeconds(15))
                    .until(() ->
                            s.instances().stream().noneMatch(i -> i.endpoint().equals(A)));
            assertThat(Duration.ofNanos(System.nanoTime() - gone)).isGreaterThan(Duration.ofMillis(4000));
        }
    }
}
