package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CallLoad;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** Registry behaviour that needs more than one provider or more than one ZooKeeper node. */
class RegistryClusterTest {

    private static ZookeeperRegistry registry(String connect) {
        return new ZookeeperRegistry(RegistryConfig.builder(connect).sessionTimeout(Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(20)).retry(Duration.ofMillis(100), 5).build(), connect, null);
    }

    @Test
    void failoverThroughTheRegistryLosesNoCallWhenAProviderStopsUnderLoad() throws Exception {
        try (TestingServer zk = new TestingServer(true)) {
            GateServiceImpl a = new GateServiceImpl("a");
            GateServiceImpl b = new GateServiceImpl("b");
            RpcServer pa = RpcServer.builder().host("127.0.0.1").registry(registry(zk.getConnectString()))
                    .unregisterDelay(Duration.ofMillis(200)).service(GateService.class, a).build().start();
            try (RpcServer pb = RpcServer.builder().host("127.0.0.1").registry(registry(zk.getConnectString()))
                    .service(GateService.class, b).build().start();
                 RpcClient client = RpcClient.builder().registry(registry(zk.getConnectString())).build()) {
                GateService s = client.proxy(GateService.class, ReferenceOptions.builder().loadBalancer("round-robin")
                        .timeout(Duration.ofSeconds(10)).build());
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    s.whoAmI();
                    return a.runsOf("whoAmI") > 0 && b.runsOf("whoAmI") > 0;
                });
                CallLoad load = new CallLoad(16, s::whoAmI);
                try (load) {
                    load.awaitMore("a", 400, Duration.ofSeconds(30));
                    pa.close();
                    load.awaitMore("b", 800, Duration.ofSeconds(30));
                }
                System.out.printf("failover through ZooKeeper: %d calls answered, %d failed%n", load.answeredInAll(),
                        load.errors().values().stream().mapToInt(AtomicInteger::get).sum());
                assertThat(load.errors()).as("failed calls by error").isEmpty();
            }
        }
    }

    @Test
    void aThreeNodeEnsembleKeepsServingWithOneNodeKilled() throws Exception {
        try (TestingCluster ensemble = new TestingCluster(3)) {
            ensemble.start();
            String connect = ensemble.getConnectString();
            ServiceKey key = ServiceKey.of(GateService.class, "", "");
            try (ZookeeperRegistry provider = registry(connect); ZookeeperRegistry consumer = registry(connect)) {
                ServiceDiscovery.Subscription sub = consumer.subscribe(key, l -> { });
                provider.register(ServiceInstance.of(key, new Endpoint("127.0.0.1", 21001)));
                await().atMost(Duration.ofSeconds(20)).until(() -> sub.instances().size() == 1);

                InstanceSpec victim = ensemble.getInstances().iterator().next();
                assertThat(ensemble.killServer(victim)).isTrue();

                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                    provider.register(ServiceInstance.of(key, new Endpoint("127.0.0.1", 21002)));
                    return true;
                });
                await().atMost(Duration.ofSeconds(30)).until(() -> sub.instances().size() == 2);
                try (ZookeeperRegistry late = registry(connect)) {
                    ServiceDiscovery.Subscription fresh = late.subscribe(key, l -> { });
                    await().atMost(Duration.ofSeconds(30)).until(() -> fresh.instances().size() == 2);
                }
            }
        }
    }
}
