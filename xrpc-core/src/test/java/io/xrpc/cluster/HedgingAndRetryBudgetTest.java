package io.xrpc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.ReferenceView;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hedged calls and the retry budget against real providers on loopback. */
class HedgingAndRetryBudgetTest {

    private static RpcServer provider(GateServiceImpl impl) {
        return RpcServer.builder()
                .host("127.0.0.1")
                .service(GateService.class, impl)
                .build()
                .start();
    }

    private static ReferenceView view(RpcClient client) {
        return client.references().get(client.references().size() - 1);
    }

    private static int activeOn(RpcClient client, RpcServer server) {
        return view(client).providers().stream()
                .filter(p -> p.endpoint().equals(server.endpoint()))
                .mapToInt(ReferenceView.Provider::activeCalls)
                .sum();
    }

    @Test
    @Timeout(60)
    void aStalledProviderCostsAHedgedIdempotentCallTheDelayNotTheDeadline() throws Exception {
        GateServiceImpl stuck = new GateServiceImpl("stuck");
        GateServiceImpl fine = new GateServiceImpl("fine");
        fine.gate.countDown();
        try (RpcServer p1 = provider(stuck);
                RpcServer p2 = provider(fine);
                RpcClient client = RpcClient.builder().build()) {
            // Round robin starts with the first address: the stuck provider gets the first attempt.
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(p1.endpoint())
                            .address(p2.endpoint())
                            .loadBalancer("round-robin")
                            .timeout(Duration.ofSeconds(20))
                            .hedging(Hedging.after(Duration.ofMillis(100)))
                            .build());
            long start = System.nanoTime();
            assertThat(s.passIdempotent("h")).isEqualTo("h@fine");
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("hedged call answered after %d ms (delay 100 ms, deadline 20 s)%n", tookMillis);
            assertThat(stuck.runsOf("h"))
                    .as("the first attempt reached the stuck provider")
                    .isEqualTo(1);
            CallCounters.Snapshot c = view(client).counters();
            assertThat(c.calls()).isEqualTo(1);
            assertThat(c.hedges()).isEqualTo(1);
            assertThat(c.hedgesWon()).isEqualTo(1);
            assertThat(c.retries()).isZero();
            assertThat(tookMillis)
                    .as("the call waited the delay, not its 20 s deadline")
                    .isLessThan(10_000);
            // The losing attempt was cancelled: it no longer counts as in flight on the stuck provider.
            await().atMost(Duration.ofSeconds(10)).until(() -> activeOn(client, p1) == 0);
            stuck.gate.countDown();
        }
    }

    @Test
    @Timeout(60)
    void aMethodNotMarkedIdempotentIsNeverHedged() throws Exception {
        GateServiceImpl stuck = new GateServiceImpl("stuck");
        GateServiceImpl fine = new GateServiceImpl("fine");
        fine.gate.countDown();
        try (RpcServer p1 = provider(stuck);
                RpcServer p2 = provider(fine);
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(p1.endpoint())
                            .address(p2.endpoint())
                            .loadBalancer("round-robin")
                            .timeout(Duration.ofMillis(600))
                            .retries(0)
                            .hedging(Hedging.after(Duration.ofMillis(50)))
                            .build());
            assertThatThrownBy(() -> s.pass("n"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            assertThat(fine.runsOf("n"))
                    .as("runs of the non-idempotent call elsewhere")
                    .isZero();
            assertThat(view(client).counters().hedges()).isZero();
            stuck.gate.countDown();
        }
    }

    @Test
    @Timeout(60)
    void aPercentileDelayHedgesOnlyOnceItHasEnoughAnswers() throws Exception {
        GateServiceImpl a = new GateServiceImpl("a");
        GateServiceImpl b = new GateServiceImpl("b");
        try (RpcServer p1 = provider(a);
                RpcServer p2 = provider(b);
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(p1.endpoint())
                            .address(p2.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .methodHedging("work", Hedging.atPercentile(90))
                            .build());
            for (int i = 0; i < Hedging.MIN_SAMPLES - 1; i++) {
                s.work(0);
            }
            assertThat(view(client).counters().hedges())
                    .as("hedges before the percentile is known")
                    .isZero();
            for (int i = 0; i < 9; i++) { // the window learns each answer just after its caller has it
                s.work(0);
            }
            long before = view(client).counters().hedges(); // a slow moment of a quick call may have been hedged
            int runsBefore = a.runsOf("work") + b.runsOf("work");
            // Answers took well under a millisecond: a call that works 300 ms is hedged long before it ends.
            s.work(300);
            assertThat(view(client).counters().hedges()).isGreaterThan(before);
            assertThat(a.runsOf("work") + b.runsOf("work"))
                    .as("the call and its hedge both ran")
                    .isGreaterThanOrEqualTo(runsBefore + 2);
        }
    }

    /**
     * Two providers that can each run one call at a time and queue none, and eight callers: most
     * attempts are refused {@code SERVER_BUSY}, which failover may always retry. Without a budget
     * the retries multiply the offered load; with it they stay near a tenth of the answers.
     */
    @Test
    @Timeout(120)
    void theRetryBudgetKeepsRetriesOfAnOverloadedClusterNearATenthOfTheCalls() throws Exception {
        double unthrottled = retriesPerCall(ReferenceOptions.builder().noRetryBudget());
        double budgeted = retriesPerCall(ReferenceOptions.builder());
        System.out.printf(
                "retries per call on an overloaded cluster: %.2f without a budget, %.2f with the" + " default budget%n",
                unthrottled, budgeted);
        assertThat(unthrottled)
                .as("the scenario makes a retry storm without a budget")
                .isGreaterThan(0.5);
        // 50 tokens above half at first, then 0.1 a success: at most 50/2000 + 0.1.
        assertThat(budgeted).isLessThanOrEqualTo(0.13);
    }

    private static double retriesPerCall(ReferenceOptions.Builder options) throws Exception {
        RpcServer.Builder tiny =
                RpcServer.builder().host("127.0.0.1").executorThreads(1).executorQueue(0);
        try (RpcServer p1 = tiny.service(GateService.class, new GateServiceImpl("a"))
                        .build()
                        .start();
                RpcServer p2 = RpcServer.builder()
                        .host("127.0.0.1")
                        .executorThreads(1)
                        .executorQueue(0)
                        .service(GateService.class, new GateServiceImpl("b"))
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    options.address(p1.endpoint())
                            .address(p2.endpoint())
                            .timeout(Duration.ofSeconds(5))
                            .build());
            AtomicInteger left = new AtomicInteger(2000);
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                Future<?>[] loops = new Future<?>[8];
                for (int i = 0; i < loops.length; i++) {
                    loops[i] = callers.submit(() -> {
                        while (left.decrementAndGet() >= 0) {
                            try {
                                s.work(2);
                            } catch (RpcException e) {
                                assertThat(e.status()).isEqualTo(RpcStatus.SERVER_BUSY);
                            }
                        }
                        return null;
                    });
                }
                for (Future<?> f : loops) {
                    f.get(100, TimeUnit.SECONDS);
                }
            } finally {
                callers.shutdownNow();
            }
            CallCounters.Snapshot c = view(client).counters();
            assertThat(c.calls()).isEqualTo(2000);
            return (double) c.retries() / c.calls();
        }
    }
}
