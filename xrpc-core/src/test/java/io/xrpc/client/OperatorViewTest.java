package io.xrpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.ExportedService;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What operators see (the snapshots behind the Actuator endpoint) and what interceptors see of a
 * call (its serializer and size, for observations), checked against real calls on loopback.
 */
@Timeout(60)
class OperatorViewTest {

    @Test
    void aRunningCallShowsOnBothSidesAndLeavesWhenAnswered() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        List<String> serverSaw = new CopyOnWriteArrayList<>();
        List<Invocation> clientSaw = new CopyOnWriteArrayList<>();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .interceptor((inv, next) -> {
                            serverSaw.add(inv.serializer() + " " + inv.requestBytes());
                            return next.proceed(inv);
                        })
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder()
                        .interceptor((inv, next) -> {
                            CompletableFuture<Object> f = next.proceed(inv);
                            clientSaw.add(inv); // after proceed: encoded by now
                            return f;
                        })
                        .build()) {
            GateService gate = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .serializer("hessian")
                            .loadBalancer("least-active")
                            .retries(0)
                            .build());
            ReferenceView before = client.references().get(0);
            assertThat(before.key().interfaceName()).isEqualTo(GateService.class.getName());
            assertThat(before.source()).isEqualTo("[" + server.endpoint() + "]");
            assertThat(before.serializer()).isEqualTo("hessian");
            assertThat(before.loadBalancer()).isEqualTo("least-active");
            assertThat(before.retries()).isZero();
            assertThat(before.timeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(before.providers()).singleElement().satisfies(p -> {
                assertThat(p.state()).as("never called").isEqualTo(ReferenceView.State.IDLE);
                assertThat(p.openConnections()).isZero();
            });

            CompletableFuture<String> running = gate.passAsync("held");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            ExportedService service = server.services().get(0);
            assertThat(service.key().interfaceName()).isEqualTo(GateService.class.getName());
            assertThat(service.methods()).contains("pass(java.lang.String)", "passAsync(java.lang.String)");
            assertThat(service.serializers()).as("any").isEmpty();
            assertThat(service.inFlight()).isEqualTo(1);
            assertThat(client.references().get(0).providers()).singleElement().satisfies(p -> {
                assertThat(p.state()).isEqualTo(ReferenceView.State.CONNECTED);
                assertThat(p.openConnections()).isEqualTo(1);
                assertThat(p.activeCalls()).isEqualTo(1);
                assertThat(p.setAsideUntil()).isNull();
            });

            impl.gate.countDown();
            assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("held");
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(server.services().get(0).inFlight()).isZero();
                assertThat(client.references().get(0).providers().get(0).activeCalls())
                        .isZero();
            });

            assertThat(clientSaw).singleElement().satisfies(inv -> {
                assertThat(inv.serializer()).isEqualTo("hessian");
                assertThat(inv.requestBytes()).isPositive();
            });
            int sent = clientSaw.get(0).requestBytes();
            assertThat(serverSaw).containsExactly("hessian " + sent);
        }
    }

    /** Its future never completes: the server's deadline answers it. */
    public interface Never {
        CompletableFuture<String> never();
    }

    @Test
    void aCallWhoseFutureNeverCompletesLeavesTheCountWhenItsDeadlineAnswersIt() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(Never.class, () -> new CompletableFuture<>())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Never never = client.proxy(
                    Never.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofMillis(300))
                            .retries(0)
                            .build());
            CompletableFuture<String> call = never.never();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> server.services().get(0).inFlight() == 1);
            assertThat(call).failsWithin(Duration.ofSeconds(10));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 0);
            assertThat(server.services().get(0).inFlight())
                    .as("as the server's own count")
                    .isZero();
        }
    }

    @Test
    void aProviderThatRefusesConnectionsIsShownSetAsideUntilItsNextAttempt() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort(); // closed again: nothing listens there
        }
        try (RpcClient client = RpcClient.builder()
                .reconnectBackoff(Duration.ofSeconds(30), Duration.ofSeconds(60))
                .build()) {
            GateService gate = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(new Endpoint("127.0.0.1", deadPort))
                            .build());
            Instant before = Instant.now();
            assertThatThrownBy(() -> gate.quick("x")).isInstanceOf(RpcException.class);
            assertThat(client.references().get(0).providers()).singleElement().satisfies(p -> {
                assertThat(p.state()).isEqualTo(ReferenceView.State.SET_ASIDE);
                assertThat(p.setAsideUntil())
                        .isAfter(before.plusSeconds(20))
                        .isBefore(Instant.now().plusSeconds(31));
            });
        }
    }
}
