package io.xrpc.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Canary;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.TypesService;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A payload naming a class outside the allow-list is refused, and nothing of it is constructed. */
class AllowListTest {
    static RpcServer server;
    static RpcClient client;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(GateService.class, new GateServiceImpl())
                .build()
                .start();
        client = RpcClient.builder().build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static GateService proxy(String serializer) {
        return client.proxy(
                GateService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .build());
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff"})
    void unlistedClassIsRefusedWithoutConstructingIt(String serializer) {
        GateService s = proxy(serializer);
        Canary sent = new Canary();
        int created = Canary.CREATED.get();
        assertThatThrownBy(() -> s.describe(sent)).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
            assertThat(e.getMessage()).contains("class not allowed for deserialization: " + Canary.class.getName());
        });
        assertThat(Canary.CREATED.get())
                .as("Canary instances constructed by the server")
                .isEqualTo(created);
        // The connection that carried the refused payload still serves.
        assertThat(s.quick("still here")).isEqualTo("still here");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian"})
    void gadgetClassesAreRefused(String serializer) throws Exception {
        GateService s = proxy(serializer);
        assertThatThrownBy(() -> s.describe(new URL("http://127.0.0.1:1/")))
                .isInstanceOf(RpcException.class)
                .hasMessageContaining("class not allowed for deserialization: java.net.URL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff"})
    void unlistedClassInsideAllowedCollectionIsRefused(String serializer) {
        GateService s = proxy(serializer);
        List<Object> list = new ArrayList<>();
        list.add("fine");
        list.add(new Canary());
        int created = Canary.CREATED.get();
        assertThatThrownBy(() -> s.describe(list)).hasMessageContaining(Canary.class.getName());
        assertThat(Canary.CREATED.get()).isEqualTo(created);
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff"})
    void allowedValuesInObjectParametersPass(String serializer) {
        assertThat(proxy(serializer).describe(List.of(1, "two"))).isEqualTo("[1, two]");
    }

    @Test
    void typesOfServiceInterfacesAndArraysAreAllowed() {
        ClassAllowList list = ClassAllowList.withDefaults().allowTypesOf(TypesService.class);
        assertThat(list.isAllowed("io.xrpc.testing.Dtos$Person")).isTrue();
        assertThat(list.isAllowed("io.xrpc.testing.Dtos$Address"))
                .as("field type, via List<Address>")
                .isTrue();
        assertThat(list.isAllowed("[Lio.xrpc.testing.Dtos$Person;")).isTrue();
        assertThat(list.isAllowed("[[I")).isTrue();
        assertThat(list.isAllowed("java.net.URL")).isFalse();
        assertThat(list.isAllowed("[Ljava.net.URL;")).isFalse();
        assertThat(list.isAllowed("io.xrpc.testing.Canary")).isFalse();
        assertThat(list.isAllowed("java.util.concurrent.CompletableFuture")).isFalse();
        assertThat(list.allowPackage("io.xrpc.testing").isAllowed("io.xrpc.testing.Canary"))
                .isTrue();
        assertThat(list.isAllowed("io.xrpc.testingx.Other")).isFalse();
    }
}
