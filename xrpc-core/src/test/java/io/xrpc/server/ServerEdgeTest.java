package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Server answers that must come exactly once whatever the implementation does. */
class ServerEdgeTest {
    public interface EdgeService {
        String downstreamUnavailable();

        String badMessage();

        CompletableFuture<String> never();

        byte[] big(int size);

        int length(byte[] data);

        String hugeError();
    }

    static final class EdgeImpl implements EdgeService {
        @Override
        public String downstreamUnavailable() {
            throw new RpcException(RpcStatus.UNAVAILABLE, "downstream provider went away");
        }

        @Override
        public String badMessage() {
            throw new IllegalStateException() {
                @Override
                public String getMessage() {
                    throw new UnsupportedOperationException("no message for you");
                }
            };
        }

        @Override
        public CompletableFuture<String> never() {
            return new CompletableFuture<>();
        }

        @Override
        public byte[] big(int size) {
            return new byte[size];
        }

        @Override
        public int length(byte[] data) {
            return data.length;
        }

        @Override
        public String hugeError() {
            throw new IllegalStateException("x".repeat(128 * 1024));
        }
    }

    private static final int LIMIT = 64 * 1024;

    private static RpcServer server() {
        return RpcServer.builder()
                .host("127.0.0.1")
                .maxFrameLength(LIMIT)
                .service(EdgeService.class, new EdgeImpl())
                .build()
                .start();
    }

    private static EdgeService proxy(RpcClient client, RpcServer server, long timeoutMs) {
        return client.proxy(
                EdgeService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .timeout(Duration.ofMillis(timeoutMs))
                        .build());
    }

    @Test
    void aRetrySafeStatusThrownByTheImplementationIsNotPassedOnAsRetrySafe() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().build()) {
            assertThatThrownBy(() -> proxy(client, server, 3000).downstreamUnavailable())
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.INTERNAL);
                        assertThat(e.isSafeToRetry()).isFalse();
                        assertThat(e.getMessage())
                                .contains("failed on a downstream call: UNAVAILABLE", "downstream provider went away");
                    });
        }
    }

    @Test
    void anExceptionWhoseMessageThrowsIsStillAnswered() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().build()) {
            assertThatThrownBy(() -> proxy(client, server, 10_000).badMessage())
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                        assertThat(e.remoteMessage()).contains("getMessage() threw");
                    });
            await().atMost(Duration.ofSeconds(5)).until(() -> server.inFlight() == 0);
        }
    }

    @Test
    void anAsyncResultThatNeverCompletesIsEndedAtItsDeadlineOnTheServerToo() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().build()) {
            CompletableFuture<String> f = proxy(client, server, 200).never();
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 0);
        }
    }

    @Test
    void deadlineCallbacksDoNotRunOnTheTimerThread() throws Exception {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().build()) {
            String thread = proxy(client, server, 100)
                    .never()
                    .handle((v, t) -> Thread.currentThread().getName())
                    .get(10, TimeUnit.SECONDS);
            assertThat(thread).doesNotContain("deadlines");
        }
    }

    @Test
    void oversizeResultIsAnsweredWithAnErrorAndTheConnectionSurvives() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().maxFrameLength(LIMIT).build()) {
            EdgeService s = proxy(client, server, 2000);
            CompletableFuture<String> waiting = s.never();
            assertThatThrownBy(() -> s.big(LIMIT * 2)).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                assertThat(e.getMessage()).contains("over the frame limit of " + LIMIT + " bytes");
            });
            assertThat(waiting).as("another call on the same connection").isNotDone();
            assertThat(s.big(10)).hasSize(10);
            assertThat(client.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void anExceptionWithAMessageOverTheFrameLimitFailsOnlyItsOwnCall() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().maxFrameLength(LIMIT).build()) {
            EdgeService s = proxy(client, server, 5000);
            CompletableFuture<String> waiting = s.never();
            assertThatThrownBy(s::hugeError).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                assertThat(e.remoteClassName()).isEqualTo(IllegalStateException.class.getName());
                assertThat(e.remoteMessage())
                        .startsWith("xxxx")
                        .endsWith("(truncated)")
                        .hasSizeLessThan(LIMIT);
            });
            assertThat(waiting).as("another call on the same connection").isNotDone();
            assertThat(client.openConnections()).isEqualTo(1);
            assertThat(s.big(10)).hasSize(10);
        }
    }

    @Test
    void oversizeRequestFailsOnTheClientWithoutBeingSent() {
        try (RpcServer server = server();
                RpcClient client = RpcClient.builder().maxFrameLength(LIMIT).build()) {
            EdgeService s = proxy(client, server, 10_000);
            assertThat(s.length(new byte[10])).isEqualTo(10);
            assertThatThrownBy(() -> s.length(new byte[LIMIT * 2])).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                assertThat(e.getMessage()).contains("not sent");
            });
            assertThat(s.length(new byte[20])).isEqualTo(20);
            assertThat(client.pendingCalls()).isZero();
        }
    }

    @Test
    void callsStillQueuedWhenTheServerStopsAreAnsweredUnavailableBeforeTheConnectionCloses() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .executorThreads(1)
                .executorQueue(8)
                .shutdownGrace(Duration.ZERO)
                .service(GateService.class, impl)
                .build()
                .start();
        try (RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            CompletableFuture<String> running = s.passAsync("running");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> queued1 = s.passAsync("queued1");
            CompletableFuture<String> queued2 = s.passAsync("queued2");
            await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 3);
            server.close();
            impl.gate.countDown();
            // Never run, so safe to send elsewhere: UNAVAILABLE, not "connection closed, may have run".
            for (CompletableFuture<String> f : List.of(queued1, queued2)) {
                assertThat(f)
                        .failsWithin(Duration.ofSeconds(10))
                        .withThrowableOfType(ExecutionException.class)
                        .havingCause()
                        .isInstanceOfSatisfying(RpcException.class, e -> {
                            assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
                            assertThat(e.isSafeToRetry()).isTrue();
                        });
            }
            // The running one is interrupted when the grace ends; its answer may or may not make it out.
            await().atMost(Duration.ofSeconds(10)).until(running::isDone);
            assertThat(impl.runsOf("queued1") + impl.runsOf("queued2")).isZero();
        }
    }

    @Test
    void moreQueuedAnswersThanOneWriteBatchAllReachTheClientBeforeTheClose() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        int queued = 600; // over the write queue's 256 frames per turn
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .executorThreads(1)
                .executorQueue(queued)
                .shutdownGrace(Duration.ZERO)
                .service(GateService.class, impl)
                .build()
                .start();
        try (RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(30))
                            .retries(0)
                            .build());
            CompletableFuture<String> running = s.passAsync("running");
            assertThat(impl.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            List<CompletableFuture<String>> waiting = new ArrayList<>();
            for (int i = 0; i < queued; i++) {
                waiting.add(s.passAsync("q" + i));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> server.inFlight() == queued + 1);
            server.close();
            impl.gate.countDown();
            for (CompletableFuture<String> f : waiting) {
                assertThat(f)
                        .failsWithin(Duration.ofSeconds(10))
                        .withThrowableOfType(ExecutionException.class)
                        .havingCause()
                        .isInstanceOfSatisfying(
                                RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE));
            }
            await().atMost(Duration.ofSeconds(10)).until(running::isDone);
        }
    }
}
