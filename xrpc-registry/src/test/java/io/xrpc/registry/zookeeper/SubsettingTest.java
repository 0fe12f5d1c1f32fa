package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.ReferenceView;
import io.xrpc.client.RpcClient;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.Subsetting;
import io.xrpc.registry.PeerPosition;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Subsetting through the real registry and transport: 24 providers and 4 consumers on loopback,
 * the consumers placed among one another by the registry's peer group. Each calls only its window
 * (and connects only there), and together they cover every provider about evenly.
 */
@Timeout(120)
class SubsettingTest {
    private static final int PROVIDERS = 24;
    private static final int CONSUMERS = 4;
    private static final ServiceKey KEY = ServiceKey.of(GateService.class, "", "");

    private static ZookeeperRegistry registry(String connect, String application) {
        return new ZookeeperRegistry(
                ZookeeperSettings.defaults()
                        .withMode(ZookeeperSettings.Mode.INSTANCE, application)
                        .withConnectTimeout(Duration.ofSeconds(20)),
                connect,
                null);
    }

    @Test
    void eachConsumerCallsItsOwnWindowAndTogetherTheyCoverEveryProvider() throws Exception {
        List<RpcServer> servers = new ArrayList<>();
        List<GateServiceImpl> impls = new ArrayList<>();
        List<RpcClient> clients = new ArrayList<>();
        try (TestingServer zk = new TestingServer(true)) {
            try {
                for (int k = 0; k < PROVIDERS; k++) {
                    GateServiceImpl impl = new GateServiceImpl("p" + k);
                    impls.add(impl);
                    servers.add(RpcServer.builder()
                            .host("127.0.0.1")
                            .ioThreads(1)
                            .registry(registry(zk.getConnectString(), "shop"))
                            .service(GateService.class, impl)
                            .build()
                            .start());
                }
                // An aperture of at least 4 over lists of more than 8: 4 consumers of 24 take 6 each.
                // random within the window, so that the spread seen is the windows' cover, not p2c's
                // preference for whichever of equally fast providers answered a little faster.
                ReferenceOptions options = ReferenceOptions.builder()
                        .subsetting(Subsetting.aperture(4, 8))
                        .loadBalancer("random")
                        .timeout(Duration.ofSeconds(10))
                        .build();
                List<ZookeeperRegistry> registries = new ArrayList<>();
                List<GateService> proxies = new ArrayList<>();
                for (int c = 0; c < CONSUMERS; c++) {
                    ZookeeperRegistry r = registry(zk.getConnectString(), "web");
                    registries.add(r);
                    RpcClient client = RpcClient.builder().registry(r).build();
                    clients.add(client);
                    proxies.add(client.proxy(GateService.class, options));
                }
                registries.forEach(r -> r.peers(KEY)); // joined already: the list was large when the reference was made
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> registries.stream().allMatch(r -> {
                            PeerPosition p = r.peers(KEY).get();
                            return p != null && p.count() == CONSUMERS;
                        }));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> clients.stream()
                                .allMatch(c -> c.references().get(0).providers().size() == PROVIDERS));
                Set<Integer> places = new HashSet<>();
                registries.forEach(r -> places.add(r.peers(KEY).get().index()));
                assertThat(places).as("each consumer its own place").hasSize(CONSUMERS);

                Set<String> everyone = new HashSet<>();
                for (int c = 0; c < CONSUMERS; c++) {
                    Set<String> reached = new HashSet<>();
                    for (int k = 0; k < 600; k++) {
                        reached.add(proxies.get(c).whoAmI());
                    }
                    everyone.addAll(reached);
                    long connected = clients.get(c).references().get(0).providers().stream()
                            .filter(p -> p.state() == ReferenceView.State.CONNECTED)
                            .count();
                    System.out.printf(
                            "consumer %s: %d providers called, %d connected of %d%n",
                            registries.get(c).peers(KEY).get(), reached.size(), connected, PROVIDERS);
                    // A window of 6 provider slices starting at a slice boundary: 6 providers.
                    assertThat(reached).as("providers consumer %d called", c).hasSizeBetween(4, 7);
                    assertThat(connected).as("connections of consumer %d", c).isLessThanOrEqualTo(7);
                }
                assertThat(everyone)
                        .as("the windows together cover every provider")
                        .hasSize(PROVIDERS);
                int[] runs = impls.stream().mapToInt(i -> i.runsOf("whoAmI")).toArray();
                double mean = 600.0 * CONSUMERS / PROVIDERS;
                int max = java.util.Arrays.stream(runs).max().orElseThrow();
                int min = java.util.Arrays.stream(runs).min().orElseThrow();
                System.out.printf(
                        "calls per provider: mean %.0f, max %d (%.2fx), min %d (%.2fx)%n",
                        mean, max, max / mean, min, min / mean);
                // 100 calls a provider: one standard deviation of chance is 10%.
                assertThat(max / mean).as("the busiest provider").isLessThan(1.6);
                assertThat(min / mean).as("the least busy provider").isGreaterThan(0.4);
            } finally {
                clients.forEach(RpcClient::close);
                servers.forEach(RpcServer::close);
            }
        }
    }

    @Test
    void theRegistryPlacesConsumersAndFollowsThemComingAndGoing() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                org.apache.curator.framework.CuratorFramework writer =
                        org.apache.curator.framework.CuratorFrameworkFactory.newClient(
                                zk.getConnectString(), new org.apache.curator.retry.RetryOneTime(100))) {
            writer.start();
            // Names no consumer writes are not counted.
            writer.create()
                    .creatingParentsIfNeeded()
                    .forPath("/xrpc/consumers/"
                            + java.net.URLEncoder.encode(KEY.toString(), java.nio.charset.StandardCharsets.UTF_8)
                            + "/web/not-a-peer");
            List<ZookeeperRegistry> rs = new ArrayList<>();
            try {
                for (int c = 0; c < 3; c++) {
                    rs.add(registry(zk.getConnectString(), "web"));
                }
                rs.forEach(r -> r.peers(KEY)); // each joins the consumers of its application that subset KEY
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rs.stream().allMatch(r -> {
                            PeerPosition p = r.peers(KEY).get();
                            return p != null && p.count() == 3;
                        }));
                Set<Integer> places = new HashSet<>();
                rs.forEach(r -> places.add(r.peers(KEY).get().index()));
                assertThat(places).containsExactlyInAnyOrder(0, 1, 2);
                // Another application's consumers are placed among themselves, and so are those of
                // another service: each group's windows cover that service's providers.
                try (ZookeeperRegistry other = registry(zk.getConnectString(), "billing")) {
                    other.peers(KEY);
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> other.peers(KEY).get() != null);
                    assertThat(other.peers(KEY).get()).isEqualTo(new PeerPosition(0, 1));
                }
                ServiceKey another = new ServiceKey("com.acme.Other", "", "");
                rs.get(0).peers(another);
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rs.get(0).peers(another).get() != null);
                assertThat(rs.get(0).peers(another).get()).isEqualTo(new PeerPosition(0, 1));
                // A consumer has one name in every group: the same consumers, the same order.
                rs.get(1).peers(another);
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rs.get(0).peers(another).get().count() == 2
                                && rs.get(1).peers(another).get() != null);
                assertThat(rs.get(0).peers(another).get().index()
                                < rs.get(1).peers(another).get().index())
                        .isEqualTo(rs.get(0).peers(KEY).get().index()
                                < rs.get(1).peers(KEY).get().index());
                rs.remove(0).close(); // its node goes with it
                await().atMost(Duration.ofSeconds(20))
                        .until(() ->
                                rs.stream().allMatch(r -> r.peers(KEY).get().count() == 2));
                Set<Integer> after = new HashSet<>();
                rs.forEach(r -> after.add(r.peers(KEY).get().index()));
                assertThat(after).containsExactlyInAnyOrder(0, 1);
            } finally {
                rs.forEach(ZookeeperRegistry::close);
            }
        }
    }
}
