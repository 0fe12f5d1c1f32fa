package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.server.RpcServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Levels measured in steady state (the warm-up rule), and the open model's account of coordinated omission. */
class SteadyStateTest {

    private static List<Second> points(double... callsPerSecond) {
        List<Second> p = new ArrayList<>();
        for (double c : callsPerSecond) {
            p.add(new Second(0, c, 0, 0, 0, 0, 0, 0, 1));
        }
        return p;
    }

    @Test
    void aLevelIsWarmWhenItsThroughputStopsRisingNotWhenItPauses() {
        Warmup rule = new Warmup(Duration.ofSeconds(3), Duration.ofSeconds(30), 0.1);
        // Seen here at 1 thread in a new callers' JVM: a plateau, then another climb.
        assertThat(rule.steady(points(4452, 4756, 5031, 5151, 5300), false))
                .as("still climbing 4-6% a second")
                .isFalse();
        assertThat(rule.steady(points(3000, 4000, 5000, 6000, 7000), false)).isFalse();
        assertThat(rule.steady(points(9000, 8000, 7000, 6000, 5000), false))
                .as("falling is not steady either")
                .isFalse();
        assertThat(rule.steady(points(10_800, 11_300, 10_700, 11_400, 11_000), false))
                .as("scattered, no trend")
                .isTrue();
        assertThat(rule.steady(points(11_000, 11_000, 11_000, 11_000), false))
                .as("five points at least")
                .isFalse();
        assertThat(rule.steady(points(0, 0, 0, 0, 0), false))
                .as("nothing answered")
                .isFalse();
        assertThat(Warmup.drift(points(4309, 5082, 8257, 9310, 8680, 9122), false))
                .isGreaterThan(50);
        assertThat(Warmup.drift(points(9786, 9830, 10157, 10027, 9305, 9496), false))
                .isBetween(-10.0, 10.0);
        assertThat(Warmup.drift(points(0, 0, 0, 900, 1000, 950), false))
                .as("failing, then answering")
                .isEqualTo(100);
        assertThat(rule.hopeless(points(0, 0, 0, 0, 0))).isTrue();
        assertThat(rule.hopeless(points(0, 0, 0, 0, 10))).isFalse();
    }

    /** The demo UserService whose getUser answers after {@code delay.applyAsLong(call number)} milliseconds. */
    private static HookedUsers paced(LongUnaryOperator delay) {
        AtomicLong calls = new AtomicLong();
        return new HookedUsers(id -> {
            long ms = delay.applyAsLong(calls.incrementAndGet());
            if (ms > 0) {
                try {
                    Thread.sleep(ms); // the simulated provider's pace
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
    }

    /**
     * A provider slow for its first 3 s (a cold cache, a JIT at work) then fast. Before: a fixed
     * --warmup of 500 ms left the slow stretch in the measured level (p50 above 2 ms, a drift of
     * several hundred percent); the level now warms until its throughput stops rising.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aLevelWarmsUntilItsThroughputStopsRising(@TempDir Path dir) throws Exception {
        long[] first = {0};
        HookedUsers users = paced(n -> {
            synchronized (first) {
                if (first[0] == 0) {
                    first[0] = System.nanoTime();
                }
                return System.nanoTime() - first[0] < TimeUnit.SECONDS.toNanos(3) ? 2 : 0;
            }
        });
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(UserService.class, users)
                .build()
                .start()) {
            List<Level> levels = StressTool.run(
                    "--target",
                    provider.endpoint().toString(),
                    "--call",
                    UserService.class.getName() + "/getUser",
                    "--args",
                    "[1]",
                    "--threads",
                    "1",
                    "--duration",
                    "2s",
                    "--warmup",
                    "500ms",
                    "--max-warmup",
                    "20s",
                    "--client",
                    "inproc",
                    "--quiet",
                    "--out",
                    dir.toString());
            Level l = levels.get(0);
            assertThat(l.warmupSeconds()).as("warmed past the slow stretch").isGreaterThan(3);
            assertThat(l.warmup()).as("the warm-up's course is kept").hasSizeGreaterThanOrEqualTo(Warmup.WINDOW);
            assertThat(l.p50Micros()).as("no slow call measured").isLessThan(2000);
            String md = Files.readString(dir.resolve("results.md"));
            assertThat(md).contains("| warm-up s | steady |");
        }
    }

    /**
     * The open model: calls due every 5 ms from one caller, and a provider that stalls 300 ms
     * on every 400th call. Latency counted from when each call was due puts the stall on every
     * call that waited behind it (about 60 of them, half over 150 ms); counted from when each
     * was sent, as a closed loop does, only the stalled call would show it.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void anOpenModelRunCountsEachLatencyFromWhenItsCallWasDue(@TempDir Path dir) throws Exception {
        HookedUsers users = paced(n -> n % 400 == 0 ? 300 : 0);
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(UserService.class, users)
                .build()
                .start()) {
            List<Level> levels = StressTool.run(
                    "--target",
                    provider.endpoint().toString(),
                    "--call",
                    UserService.class.getName() + "/getUser",
                    "--args",
                    "[1]",
                    "--threads",
                    "1",
                    "--rate",
                    "200/s",
                    "--duration",
                    "4s",
                    "--warmup",
                    "500ms",
                    "--max-warmup",
                    "3s",
                    "--client",
                    "inproc",
                    "--quiet",
                    "--out",
                    dir.toString());
            Level l = levels.get(0);
            assertThat(l.rate()).isEqualTo(200);
            assertThat(l.calls()).as("about 4 s at 200/s").isGreaterThan(400);
            Histogram h = l.latencies();
            long late = h.getCountBetweenValues(TimeUnit.MILLISECONDS.toNanos(150), h.getMaxValue());
            assertThat(late)
                    .as("calls over 150 ms in %d calls (at least one stall among 400 in a row)", l.calls())
                    .isGreaterThanOrEqualTo(15);
            assertThat(Files.readString(dir.resolve("report.html"))).contains("open model: calls start at 200/s");
        }
    }
}
