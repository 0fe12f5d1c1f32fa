package io.xrpc.registry.zookeeper.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.ZookeeperRegistry;
import io.xrpc.registry.zookeeper.ZookeeperSettings;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.time.Duration;
import java.util.ArrayList;
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

/** The per-instance layout's revisions against a real ZooKeeper: what a new deployment sweeps. */
@Timeout(90)
class RevisionSweepTest {
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
                        .withRetry(Duration.ofMillis(100), 3),
                zk.getConnectString(),
                null);
    }

    private static List<ServiceInstance> services(int count, int port) {
        List<ServiceInstance> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(new ServiceInstance(
                    new ServiceKey("com.acme.Service" + i, "1.0", ""),
                    new Endpoint("127.0.0.1", port),
                    100,
                    List.of("kryo"),
                    Map.of()));
        }
        return all;
    }

    /**
     * ZooKeeper keeps about one revision per live deployment, and the one before: a new revision's
     * first instance deletes the application's revisions no instance serves (older than the keep
     * time, 0 here). Before, one stayed for every deployment ever made.
     */
    @Test
    void aNewDeploymentDeletesTheRevisionsNoInstanceServes() throws Exception {
        long keep = InstanceLayout.revisionKeepMillis;
        InstanceLayout.revisionKeepMillis = 0;
        try (ZookeeperRegistry first = registry(ZookeeperSettings.Mode.INSTANCE);
                CuratorFramework look =
                        CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100))) {
            look.start();
            String revisions = "/xrpc/apps/shop/revisions";
            first.registerAll(services(1, 20041));
            String one = NodeCodec.revisionOf(NodeCodec.encodeRevision(services(1, 20041)));
            String three = NodeCodec.revisionOf(NodeCodec.encodeRevision(services(3, 20041)));
            // Three deployments of the same process, each serving one more service. A sweep runs as
            // a new revision is written, while the previous one is still served: that one stays
            // until the next deployment (a rollback finds it).
            first.register(services(2, 20041).get(1));
            first.register(services(3, 20041).get(2));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !look.getChildren().forPath(revisions).contains(one));
            assertThat(look.getChildren().forPath(revisions)).hasSize(2).contains(three);
            try (ZookeeperRegistry second = registry(ZookeeperSettings.Mode.INSTANCE)) {
                second.registerAll(services(4, 20042));
                // The first process's and the second's, both served; the second deployment's went.
                String four = NodeCodec.revisionOf(NodeCodec.encodeRevision(services(4, 20042)));
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(look.getChildren().forPath(revisions))
                                .containsExactlyInAnyOrder(three, four));
            }
            assertThat(look.getChildren().forPath("/xrpc/apps/shop/instances")).hasSize(1);
        } finally {
            InstanceLayout.revisionKeepMillis = keep;
        }
    }
}
