package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.testing.GateService;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The registry SPI carries scheme, address and string parameters; the ZooKeeper provider reads its own. */
class ZookeeperSettingsTest {
    @Test
    void anAddressCarriesItsSchemeHostsAndParameters() {
        RegistryConfig c = RegistryConfig.builder("zookeeper://zk1:2181,zk2:2181?session-timeout=15s&root-path=%2Fshop")
                .parameter("max-retries", "3")
                .build();
        assertThat(c.scheme()).isEqualTo("zookeeper");
        assertThat(c.address()).isEqualTo("zk1:2181,zk2:2181");
        assertThat(c.parameters())
                .containsExactly(
                        Map.entry("session-timeout", "15s"),
                        Map.entry("root-path", "/shop"),
                        Map.entry("max-retries", "3"));
        ZookeeperSettings s = ZookeeperSettings.of(c);
        assertThat(s.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.rootPath()).isEqualTo("/shop");
        assertThat(s.maxRetries()).isEqualTo(3);
        assertThat(s.connectTimeout()).isEqualTo(ZookeeperSettings.defaults().connectTimeout());
        assertThat(RegistryConfig.builder("zk1:2181").build().scheme())
                .as("the short form")
                .isEqualTo("zookeeper");
        assertThat(RegistryConfig.builder("embedded?empty-list-grace=0ms")
                        .build()
                        .scheme())
                .isEqualTo("embedded");
    }

    /**
     * Before: embedded took credentials, and once the JVM serving it stopped, any local process
     * that bound the port first received every remaining JVM's user:password in clear.
     */
    @Test
    void anEmbeddedRegistryRefusesCredentialsBeforeItStartsAnything() {
        assertThatThrownBy(() -> Registries.create(
                        RegistryConfig.builder("xrpc:s3cret@embedded?port=1").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("embedded takes no credentials")
                .hasMessageContaining("writable by every local user")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void durationsInEveryUsualFormAndClearErrorsOtherwise() {
        for (String v : List.of("1500ms", "PT1.5S", "pt1.5s")) {
            assertThat(ZookeeperSettings.of(RegistryConfig.builder("zk:1")
                                    .parameter("connect-timeout", v)
                                    .build())
                            .connectTimeout())
                    .as(v)
                    .isEqualTo(Duration.ofMillis(1500));
        }
        assertThat(ZookeeperSettings.of(RegistryConfig.builder("zk:1?session-timeout=2m")
                                .build())
                        .sessionTimeout())
                .isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> ZookeeperSettings.of(
                        RegistryConfig.builder("zk:1?session-timeout=soon").build()))
                .hasMessageContaining("session-timeout: 'soon' (expected: a duration such as 500ms, 30s or 2m)");
        assertThatThrownBy(() -> ZookeeperSettings.of(
                        RegistryConfig.builder("zk:1?sesion-timeout=5s").build()))
                .hasMessageContaining("unknown parameter 'sesion-timeout'")
                .hasMessageContaining("session-timeout");
        assertThatThrownBy(() -> ZookeeperSettings.of(
                        RegistryConfig.builder("zk:1?root-path=shop").build()))
                .hasMessageContaining("root-path: 'shop'");
        assertThatThrownBy(() -> ZookeeperSettings.of(RegistryConfig.builder("zk:1?session-timeout=999999999999999h")
                        .build()))
                .hasMessageContaining("session-timeout: PT999999999999999H (expected: > 0 and at most");
        assertThatThrownBy(() -> RegistryConfig.builder("zk:1?root-path=/a&root-path=/b"))
                .hasMessageContaining("parameter 'root-path' given twice");
        assertThatThrownBy(() -> RegistryConfig.builder("zk:1?root-path=%zz"))
                .hasMessageContaining("registry address zk:1?root-path=%zz");
        assertThat(RegistryConfig.builder("zk:1?root-path=/a+b").build().parameter("root-path"))
                .isEqualTo("/a+b");
    }

    @Test
    void theProviderUsesTheParametersOfTheAddress() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                Registry r = Registries.create(
                        "zookeeper://" + zk.getConnectString() + "?root-path=/shop&session-timeout=5s");
                CuratorFramework inspector =
                        CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100))) {
            inspector.start();
            r.register(new ServiceInstance(
                    ServiceKey.of(GateService.class, "", ""),
                    new Endpoint("127.0.0.1", 20880),
                    100,
                    List.of(),
                    Map.of()));
            assertThat(inspector.checkExists().forPath("/shop"))
                    .as("the root from the address")
                    .isNotNull();
            assertThat(inspector.checkExists().forPath("/xrpc")).isNull();
            // 5000 only if the session timeout was read: the connect timeout defaults to 10 s
            // and is capped at the session timeout.
            assertThat(((ZookeeperRegistry) r).curator().getZookeeperClient().getConnectionTimeoutMs())
                    .as("connection timeout, from the session timeout of the address")
                    .isEqualTo(5000);
        }
    }
}
