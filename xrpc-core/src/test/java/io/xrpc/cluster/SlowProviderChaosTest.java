package io.xrpc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.ForkedProvider;
import io.xrpc.testing.GateService;
import io.xrpc.testing.Loops;
import io.xrpc.testing.Windows;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25's chaos figures in their short form: three providers, each in a JVM of its own, 16
 * callers of an idempotent method that works 5 ms, the default {@code p2c} balancer. Answers are
 * counted per 100 ms window; the windows are printed, so a run shows its figure.
 *
 * <p>For a figure without what issue 25 added, run the frozen case with
 * {@code -Dxrpc.chaos.balancer=random -Dxrpc.chaos.hedging=none} (it then fails, printing its windows).
 */
class SlowProviderChaosTest {
    private static final int CALLERS = 16;

    /** Callers in a loop, their answers counted per window and per provider. */
    private static final class Load implements AutoCloseable {
        final Windows clock = new Windows();
        final AtomicIntegerArray windows = Windows.counts();
        final Map<String, AtomicIntegerArray> byProvider = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        final Loops loops;

        Load(GateService s) {
            loops = new Loops(CALLERS, i -> () -> {
                try {
                    String who = s.work(5);
                    int w = window();
                    windows.incrementAndGet(w);
                    byProvider.computeIfAbsent(who, k -> Windows.counts()).incrementAndGet(w);
                } catch (RpcException e) {
                    errors.computeIfAbsent(e.status() + ": " + e.getMessage(), k -> new AtomicInteger())
                            .incrementAndGet();
                }
            });
        }

        int window() {
            return clock.now();
        }

        /** Keeps the load on until {@code millis} more have passed in window time: the scenario's length. */
        void runFor(long millis) {
            clock.runFor(millis, loops::stopped);
        }

        int sum(AtomicIntegerArray a, int from, int to) {
            return Windows.sum(a, from, to);
        }

        String line(int from, int to) {
            return Windows.line(windows, from, to);
        }

        @Override
        public void close() throws Exception {
            loops.close();
        }
    }

    @Test
    @Timeout(180)
    void oneFrozenProviderOfThreeCostsNoWindowMoreThanFortyPercentAndNoIdempotentCallFails() throws Exception {
        try (ForkedJvm a = new ForkedJvm(ForkedProvider.class, "a");
                ForkedJvm b = new ForkedJvm(ForkedProvider.class, "b");
                ForkedJvm c = new ForkedJvm(ForkedProvider.class, "c");
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + a.port())
                            .address("127.0.0.1:" + b.port())
                            .address("127.0.0.1:" + c.port())
                            .timeout(Duration.ofSeconds(3))
                            .loadBalancer(System.getProperty("xrpc.chaos.balancer", "p2c"))
                            .hedging(
                                    System.getProperty("xrpc.chaos.hedging", "p95")
                                                    .equals("none")
                                            ? null
                                            : Hedging.parse(System.getProperty("xrpc.chaos.hedging", "p95")))
                            .build());
            int frozeAt;
            int end;
            try (Load load = new Load(s)) {
                load.runFor(4000); // warm-up: three fresh JVMs compile their paths
                frozeAt = load.window();
                c.freeze();
                load.runFor(4000);
                end = load.window();
                c.thaw();
                load.runFor(500);
                load.close();
                int steadyFrom = frozeAt - 10;
                double steady = load.sum(load.windows, steadyFrom, frozeAt) / 10.0;
                int worst = IntStream.range(frozeAt + 2, end)
                        .map(load.windows::get)
                        .min()
                        .orElse(0);
                System.out.printf(
                        "frozen provider: steady %.0f answers/100 ms; per 100 ms from 1 s before the freeze"
                                + " to 4 s after: %s; worst window after the first 200 ms: %d (%.0f%%); hedges %d (won %d),"
                                + " retries %d, throttled %d%n",
                        steady,
                        load.line(steadyFrom, end),
                        worst,
                        100.0 * worst / steady,
                        client.references().get(0).counters().hedges(),
                        client.references().get(0).counters().hedgesWon(),
                        client.references().get(0).counters().retries(),
                        client.references().get(0).counters().retriesThrottled());
                assertThat(load.errors).as("failed idempotent calls").isEmpty();
                assertThat(worst)
                        .as("answers in the worst 100 ms window after the first 200 ms, against a steady %.0f", steady)
                        .isGreaterThanOrEqualTo((int) Math.ceil(0.6 * steady));
            }
        }
    }

    @Test
    @Timeout(180)
    void aProviderTwentyTimesSlowerGetsAtMostATenthOfTheCallsWithinTwoSeconds() throws Exception {
        try (ForkedJvm a = new ForkedJvm(ForkedProvider.class, "a");
                ForkedJvm b = new ForkedJvm(ForkedProvider.class, "b");
                ForkedJvm slow = new ForkedJvm(ForkedProvider.class, "slow", "slowdown=20");
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + a.port())
                            .address("127.0.0.1:" + b.port())
                            .address("127.0.0.1:" + slow.port())
                            .timeout(Duration.ofSeconds(3))
                            .build());
            try (Load load = new Load(s)) {
                load.runFor(5000);
                load.close();
                int end = load.window();
                AtomicIntegerArray none = new AtomicIntegerArray(600);
                AtomicIntegerArray toSlow = load.byProvider.getOrDefault("slow", none);
                String shares = IntStream.range(0, end)
                        .mapToObj(w -> load.windows.get(w) == 0
                                ? "-"
                                : Math.round(100.0 * toSlow.get(w) / load.windows.get(w)) + "%")
                        .collect(Collectors.joining(" "));
                int after = 20; // 2 s
                double share = (double) load.sum(toSlow, after, end) / load.sum(load.windows, after, end);
                System.out.printf(
                        "20x slower provider: its share of answers per 100 ms: %s; after the first 2 s:" + " %.1f%%%n",
                        shares, 100 * share);
                assertThat(load.errors).isEmpty();
                assertThat(share)
                        .as("share of the calls after 2 s answered by the slow provider")
                        .isLessThanOrEqualTo(0.10);
            }
        }
    }
}
