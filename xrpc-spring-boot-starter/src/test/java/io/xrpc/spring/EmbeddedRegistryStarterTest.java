package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code embedded} from Spring properties: its port is {@code xrpc.registry.embedded-port}, and
 * ZooKeeper's own INFO lines (about a hundred per start) stay out of the log unless the
 * application asks for them.
 */
class EmbeddedRegistryStarterTest {

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(Apps.Provider.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "xrpc.registry.address=embedded",
                        "xrpc.server.host=127.0.0.1",
                        "xrpc.server.port=0",
                        "xrpc.server.unregister-delay=0ms",
                        "spring.main.banner-mode=off")
                .properties(properties)
                .run();
    }

    @Test
    void theEmbeddedPortIsASpringPropertyAndZooKeeperIsQuiet() throws Exception {
        int port = freePort();
        try (ConfigurableApplicationContext app = start("xrpc.registry.embedded-port=" + port)) {
            assertThat(EmbeddedZooKeeper.serves(port))
                    .as("served on the property's port")
                    .isTrue();
            assertThat(app.getEnvironment().getProperty("logging.level.org.apache.zookeeper"))
                    .isEqualTo("warn");
            assertThat(LoggerFactory.getLogger("org.apache.zookeeper.server.ZooKeeperServer")
                            .isInfoEnabled())
                    .isFalse();
            assertThat(LoggerFactory.getLogger("org.apache.curator.framework.imps.CuratorFrameworkImpl")
                            .isInfoEnabled())
                    .isFalse();
            assertThat(LoggerFactory.getLogger("org.apache.zookeeper.ClientCnxn")
                            .isWarnEnabled())
                    .as("embedded: no warning per reconnection attempt")
                    .isFalse();
            assertThat(LoggerFactory.getLogger("io.xrpc").isInfoEnabled())
                    .as("XRpc's own lines stay")
                    .isTrue();
        }
        assertThat(EmbeddedZooKeeper.serves(port))
                .as("stopped with the application")
                .isFalse();
    }

    @Test
    void anApplicationThatAsksForZooKeepersLinesGetsThem() throws Exception {
        int port = freePort();
        try (ConfigurableApplicationContext app =
                start("xrpc.registry.embedded-port=" + port, "logging.level.org.apache.zookeeper=info")) {
            assertThat(LoggerFactory.getLogger("org.apache.zookeeper.server.ZooKeeperServer")
                            .isInfoEnabled())
                    .isTrue();
            assertThat(LoggerFactory.getLogger("org.apache.zookeeper.ClientCnxn")
                            .isInfoEnabled())
                    .as("no default under a logger the application set")
                    .isTrue();
            assertThat(LoggerFactory.getLogger("org.apache.curator.framework.imps.CuratorFrameworkImpl")
                            .isInfoEnabled())
                    .as("the other defaults stand")
                    .isFalse();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
