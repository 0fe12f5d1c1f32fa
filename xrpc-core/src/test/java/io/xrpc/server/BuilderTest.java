package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
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
}
