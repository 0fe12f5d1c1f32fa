package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeadlineTest {

    @Test
    void callThatOutlivesItsDeadlineFailsNamingServiceMethodAddressAndTimeout() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(5))
                            .methodTimeout("pass", Duration.ofMillis(300))
                            .build());
            long start = System.nanoTime();
            assertThatThrownBy(() -> s.pass("slow")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED);
                assertThat(e.getMessage())
                        .isEqualTo(GateService.class.getName() + "#pass(java.lang.String) to " + server.endpoint()
                                + " timed out after 300 ms");
            });
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // It ends at its deadline, not at the 5 s reference default nor never; the upper bound is
            // only a guard against hanging, loose enough for a loaded machine.
            assertThat(elapsedMs).isBetween(290L, 3000L);
            System.out.printf("300 ms deadline: the call failed after %d ms%n", elapsedMs);
            assertThat(client.pendingCalls()).isZero();
            // Later calls on the same connection still work while the slow one is still running.
            assertThat(s.quick("after")).isEqualTo("after");
            impl.gate.countDown();
        }
    }

    @Test
    void requestWhoseBudgetRanOutWhileQueuedIsAnsweredWithoutRunning() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .executorThreads(1)
                        .executorQueue(4)
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .build());
            GateService impatient = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofMillis(200))
                            .build());
            CompletableFuture<String> blocker = s.passAsync("blocker");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> impatient.pass("late"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            impl.gate.countDown();
            assertThat(blocker.get(10, TimeUnit.SECONDS)).isEqualTo("blocker");
            await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 0);
            assertThat(impl.runsOf("late")).as("runs of the expired call").isZero();
            assertThat(impl.runsOf("blocker")).isEqualTo(1);
        }
    }

    @Test
    void saturatedExecutorAnswersServerBusyInsteadOfHanging() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .executorThreads(1)
                        .executorQueue(0)
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .build());
            CompletableFuture<String> blocker = s.passAsync("blocker");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> s.quick("second")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERVER_BUSY);
                assertThat(e.isSafeToRetry()).isTrue();
                assertThat(e.getMessage()).contains("is busy: all 1 threads and 0 queue slots in use");
            });
            impl.gate.countDown();
            assertThat(blocker.get(10, TimeUnit.SECONDS)).isEqualTo("blocker");
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(s.quick("third")).isEqualTo("third"));
        }
    }
}
