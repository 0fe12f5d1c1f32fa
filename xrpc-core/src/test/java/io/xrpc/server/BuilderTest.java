package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.config.TlsConfig;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.Test;

/** A builder's build() freezes its settings: what is built shares nothing mutable with it or its siblings. */
class BuilderTest {
    @Test
    void serversBuiltFromOneBuilderHaveAllowListsOfTheirOwn() {
        RpcServer.Builder b = RpcServer.builder().host("127.0.0.1");
        RpcServer first = b.build();
        RpcServer second = b.build();
        try {
            first.allowList().allowClassName("com.acme.OnlyFirst");
            b.allowPackage("com.acme.later");
            // Before: both servers and the builder shared one list.
            assertThat(second.allowList().isAllowed("com.acme.OnlyFirst")).isFalse();
            assertThat(first.allowList().isAllowed("com.acme.later.X")).isFalse();
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void clientsBuiltFromOneBuilderHaveAllowListsOfTheirOwn() {
        RpcClient.Builder b = RpcClient.builder();
        try (RpcClient first = b.build(); RpcClient second = b.build()) {
            first.allowList().allowClassName("com.acme.OnlyFirst");
            assertThat(second.allowList().isAllowed("com.acme.OnlyFirst")).isFalse();
        }
    }

    /** The shared builder base knows which side it builds: each refuses the other side's TLS, naming it. */
    @Test
    void eachSideRefusesTheOtherSidesTls() throws Exception {
        TlsConfig client = TlsConfig.client().build();
        TlsConfig server = TlsConfig.server(KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm()))
                .build();
        assertThatThrownBy(() -> RpcServer.builder().tls(client)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls: a client's configuration (expected: TlsConfig.server(keys))");
        assertThatThrownBy(() -> RpcClient.builder().tls(server)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls: a server's configuration (expected: TlsConfig.client())");
        // and each takes its own, chaining as its own builder
        assertThat(RpcServer.builder().tls(server).host("127.0.0.1")).isInstanceOf(RpcServer.Builder.class);
        assertThat(RpcClient.builder().tls(client).timeout(java.time.Duration.ofSeconds(1)))
                .isInstanceOf(RpcClient.Builder.class);
    }
}
