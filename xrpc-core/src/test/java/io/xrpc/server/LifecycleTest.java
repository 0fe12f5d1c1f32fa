package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.ClientInterceptor;
import io.xrpc.client.RpcClient;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.XrpcThreads;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LifecycleTest {

    @Test
    void closingTheClientFailsItsPendingCallsAtOnce() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        try (RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .service(GateService.class, impl)
                .build()
                .start()) {
            RpcClient client = RpcClient.builder().build();
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(30))
                            .build());
            CompletableFuture<String> pending = s.passAsync("waiting");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            client.close();
            assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.CANCELLED);
                        assertThat(e.getMessage()).contains("passAsync", "the client was closed");
                    });
            assertThat(client.pendingCalls()).isZero();
            assertThatThrownBy(() -> s.quick("x")).hasMessageContaining("the client is closed");
            impl.gate.countDown();
        }
    }

    @Test
    void serverCloseFinishesCallsInFlightAndRefusesNewConnections() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .shutdownGrace(Duration.ofSeconds(20))
                .service(GateService.class, impl)
                .build()
                .start();
        try (RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(30))
                            .build());
            CompletableFuture<String> inFlight = s.passAsync("in flight");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try (RpcClient other = RpcClient.builder().build()) {
                    GateService o = other.proxy(
                            GateService.class,
                            ReferenceOptions.builder()
                                    .address(server.endpoint())
                                    .build());
                    assertThatThrownBy(() -> o.quick("new"))
                            .isInstanceOfSatisfying(
                                    RpcException.class,
                                    e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE));
                }
            });
            assertThat(closing).isNotDone();
            impl.gate.countDown();
            assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo("in flight");
            closing.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void unreachableProviderFailsFastThenTheClientReconnectsWhenItIsBack() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        try (RpcClient client = RpcClient.builder()
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + port)
                            .timeout(Duration.ofSeconds(5))
                            .build());
            assertThatThrownBy(() -> s.quick("nobody")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
                assertThat(e.isSafeToRetry()).isTrue();
                assertThat(e.getMessage()).contains("127.0.0.1:" + port);
            });
            try (RpcServer server = RpcServer.builder()
                    .host("127.0.0.1")
                    .port(port)
                    .service(GateService.class, new GateServiceImpl())
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(10))
                        .ignoreException(RpcException.class)
                        .until(() -> "back".equals(s.quick("back")));
            }
        }
    }

    @Test
    void interceptorsRunInOrderAndAttachmentsReachTheServer() {
        List<String> order = new CopyOnWriteArrayList<>();
        ServerInterceptor auth = (inv, next) -> {
            order.add("server-auth");
            if (!"secret".equals(inv.attachments().get("token"))) {
                throw new RpcException(RpcStatus.CANCELLED, "unauthenticated");
            }
            return next.proceed(inv);
        };
        ServerInterceptor timing = (inv, next) -> {
            order.add("server-timing");
            return next.proceed(inv).thenApply(v -> v + "!");
        };
        ClientInterceptor token = (inv, next) -> {
            order.add("client-token");
            inv.attachments().put("token", "secret");
            return next.proceed(inv);
        };
        ClientInterceptor outer = (inv, next) -> {
            order.add("client-outer");
            return next.proceed(inv);
        };
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .interceptor(auth)
                        .interceptor(timing)
                        .service(GateService.class, new GateServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder()
                        .interceptor(outer)
                        .interceptor(token)
                        .build();
                RpcClient anonymous = RpcClient.builder().build()) {
            ReferenceOptions to =
                    ReferenceOptions.builder().address(server.endpoint()).build();
            assertThat(client.proxy(GateService.class, to).quick("hi")).isEqualTo("hi!");
            assertThat(order).containsExactly("client-outer", "client-token", "server-auth", "server-timing");
            assertThatThrownBy(() -> anonymous.proxy(GateService.class, to).quick("hi"))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.CANCELLED);
                        assertThat(e.getMessage()).contains("unauthenticated");
                    });
        }
    }

    @Test
    void anInterceptorThatPassesOnACallOfAnotherMethodFailsThatCallNamingIt() throws Exception {
        MethodDescriptor other = MethodDescriptor.of(Runnable.class.getMethod("run"));
        ClientInterceptor swap = (inv, next) ->
                next.proceed(new Invocation(inv.serviceKey(), other, new Object[0], null, null, inv.deadlineNanos()));
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, new GateServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().interceptor(swap).build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThatThrownBy(() -> s.quick("hi"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.INTERNAL))
                    .hasStackTraceContaining("an interceptor passed on a call of")
                    .hasStackTraceContaining("which " + GateService.class.getName() + " does not declare");
        }
    }

    @Test
    void aSecondServerOnATakenPortFailsNamingTheAddressAndLeavesNoThreadBehind() {
        RpcServer first = RpcServer.builder().host("127.0.0.1").port(0).build().start();
        try {
            Set<Thread> before = XrpcThreads.snapshot();
            assertThatThrownBy(() -> RpcServer.builder()
                            .host("127.0.0.1")
                            .port(first.port())
                            .build()
                            .start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:" + first.port())
                    .hasMessageContaining("already in use");
            // Nothing of the failed server may keep the JVM alive.
            XrpcThreads.awaitNoneNewKeepingTheJvmAlive(before);
        } finally {
            first.close();
        }
    }

    @Test
    void unknownExtensionNamesListWhatIsAvailable() {
        assertThatThrownBy(() -> RpcClient.builder().serializer("yaml").build())
                .isInstanceOf(IllegalArgumentException.class)
                // slow-reader is a test serializer of this module's (DeadlineWaitingSerializerProvider).
                .hasMessage(
                        "serializer: yaml (expected one of [fory, hessian, jackson, jackson-plain, json, kryo, protobuf, protostuff, slow-reader], found with"
                                + " ServiceLoader)");
        try (RpcClient client = RpcClient.builder().build()) {
            assertThatThrownBy(() -> client.proxy(
                            GateService.class,
                            ReferenceOptions.builder().compressor("zstd").build()))
                    .hasMessage("compressor: zstd (expected one of [gzip, none, recording-gzip], found with"
                            + " ServiceLoader)");
        }
        assertThatThrownBy(() -> ReferenceOptions.builder().timeout(Duration.ZERO))
                .hasMessage("timeout: PT0S (expected: > 0)");
    }

    @Test
    void syncCallFromAnEventLoopCallbackFailsInsteadOfDeadlocking() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            CompletableFuture<String> first = s.passAsync("x");
            // Attached before the response can arrive, so it runs on the event loop that completes it.
            CompletableFuture<String> nested = first.thenApply(v -> s.quick("nested"));
            impl.gate.countDown();
            assertThatThrownBy(() -> nested.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("event-loop thread");
            assertThat(s.quick("from a plain thread")).isEqualTo("from a plain thread");
        }
    }
}
