package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.config.TransportConfig;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.registry.zookeeper.ZookeeperSettings;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.server.RpcServer;
import io.xrpc.spring.autoconfigure.XrpcProperties;
import io.xrpc.testing.UserJvm;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The properties' defaults, written out for the configuration metadata, are the core's. */
class XrpcPropertiesTest {
    @Test
    void defaultsAreTheCoresDefaults() {
        XrpcProperties p = new Binder(new MapConfigurationPropertySource()).bindOrCreate("xrpc", XrpcProperties.class);
        assertThat(p.maxFrameLength().toBytes()).isEqualTo(ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH);
        assertThat(p.heartbeatInterval()).isEqualTo(TransportConfig.DEFAULT_HEARTBEAT_INTERVAL);
        assertThat(p.compressThreshold().toBytes()).isEqualTo(TransportConfig.DEFAULT_COMPRESS_THRESHOLD);
        assertThat(p.maxObjectsPerMessage()).isEqualTo(ReadLimits.DEFAULT_MAX_OBJECTS);
        assertThat(p.maxDepth()).isEqualTo(ReadLimits.DEFAULT_MAX_DEPTH);
        assertThat(p.writeBuffer().lowWaterMark().toBytes()).isEqualTo(ProtocolConstants.DEFAULT_WRITE_BUFFER_LOW);
        assertThat(p.writeBuffer().highWaterMark().toBytes()).isEqualTo(ProtocolConstants.DEFAULT_WRITE_BUFFER_HIGH);
        assertThat(p.server().frameTimeout()).isEqualTo(RpcServer.DEFAULT_FRAME_TIMEOUT);
        assertThat(p.server().maxConnections()).isEqualTo(RpcServer.DEFAULT_MAX_CONNECTIONS);
        assertThat(p.server().reflection())
                .as("as RpcServer.Builder.reflection")
                .isTrue();
        assertThat(new Binder(new MapConfigurationPropertySource(Map.of("xrpc.server.reflection", "false")))
                        .bindOrCreate("xrpc", XrpcProperties.class)
                        .server()
                        .reflection())
                .isFalse();
        assertThat(p.client().maxPendingRequestBytes().toBytes())
                .isEqualTo(RpcClient.DEFAULT_MAX_PENDING_REQUEST_BYTES);
        assertThat(p.client().outlierDetection().consecutiveFailures()).isEqualTo(RpcClient.DEFAULT_OUTLIER_FAILURES);
        assertThat(p.client().outlierDetection().baseEjection()).isEqualTo(RpcClient.DEFAULT_OUTLIER_BASE_EJECTION);
        assertThat(p.client().outlierDetection().maxEjection()).isEqualTo(RpcClient.DEFAULT_OUTLIER_MAX_EJECTION);
        ZookeeperSettings zk = ZookeeperSettings.defaults();
        assertThat(p.registry().emptyListGrace())
                .as("unset: the registry's own default")
                .isNull();
        assertThat(p.registry().embeddedPort())
                .as("unset: the system property, else 21810")
                .isNull();
        assertThat(p.registry().sessionTimeout()).isEqualTo(zk.sessionTimeout());
        assertThat(p.registry().connectTimeout()).isEqualTo(zk.connectTimeout());
        assertThat(p.registry().rootPath()).isEqualTo(zk.rootPath());
        assertThat(p.registry().shrinkGuard()).isEqualTo(zk.shrinkGuard());
        assertThat(p.registry().shrinkGuardWindow()).isEqualTo(zk.shrinkGuardWindow());
    }

    @Test
    void theMetadataGivesIdesNamesDefaultsAndPlainDescriptions() throws Exception {
        String json;
        try (InputStream in =
                getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String name : List.of(
                "xrpc.client.serializer",
                "xrpc.client.compressor",
                "xrpc.client.load-balancer",
                "xrpc.client.cluster")) {
            assertThat(json)
                    .as("hints for " + name)
                    .containsPattern("\\{\\s*\"name\"\\s*:\\s*\"" + name.replace(".", "\\.") + "\"\\s*,\\s*\"values\"");
        }
        assertThat(json)
                .containsPattern("\"name\"\\s*:\\s*\"xrpc\\.max-frame-length\"[^}]*\"defaultValue\"\\s*:\\s*\"8MB\"");
        assertThat(json).as("Javadoc markup in descriptions").doesNotContain("{@");
    }

    @Test
    void theStarterTestsRunAsUsersDoWithNoPackageOpened() {
        UserJvm.assertNoPackageOpened(XrpcPropertiesTest.class);
    }
}
