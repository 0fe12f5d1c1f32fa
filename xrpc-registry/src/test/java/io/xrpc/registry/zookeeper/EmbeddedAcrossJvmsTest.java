package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code embedded} in several JVMs on one machine: the first serves on the shared port, later ones
 * connect to it (before, each JVM started its own ZooKeeper and a consumer answered "no provider"
 * while health said UP). One test runs the provider in a JVM of its own, as a user would; the other
 * plays the earlier JVM with a server started on the port here and checks the registry under test
 * uses it rather than one of its own.
 */
class EmbeddedAcrossJvmsTest {
    @AfterEach
    void clearPort() {
        System.clearProperty(EmbeddedZooKeeper.PORT_PROPERTY);
    }

    @Test
    void aConsumerJvmFindsAProviderJvmThroughEmbedded() throws Exception {
        int port = freePort();
        try (ForkedJvm provider = new ForkedJvm(EmbeddedProviderProcess.class, Integer.toString(port))) {
            System.setProperty(EmbeddedZooKeeper.PORT_PROPERTY, Integer.toString(port));
            try (RpcClient client = RpcClient.builder().registry("embedded").build()) {
                GateService gate = client.proxy(
                        GateService.class, ReferenceOptions.builder().build());
                assertThat(gate.whoAmI()).isEqualTo("other-jvm");
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aLaterJvmConnectsToTheEmbeddedZooKeeperAnEarlierOneServes() throws Exception {
        int port = freePort();
        System.setProperty(EmbeddedZooKeeper.PORT_PROPERTY, Integer.toString(port));
        ServiceKey key = ServiceKey.of(GateService.class, "", "");
        try (EmbeddedZooKeeper earlierJvm = EmbeddedZooKeeper.start(port);
                Registry provider = Registries.create("embedded");
                Registry consumer = Registries.create("zookeeper://" + earlierJvm.connectString())) {
            provider.register(
                    new ServiceInstance(key, new Endpoint("127.0.0.1", 20880), 100, List.of("kryo"), Map.of()));
            List<ServiceInstance> seen =
                    consumer.subscribe(key, instances -> {}).instances();
            assertThat(seen).extracting(ServiceInstance::endpoint).containsExactly(new Endpoint("127.0.0.1", 20880));
        }
    }
}
