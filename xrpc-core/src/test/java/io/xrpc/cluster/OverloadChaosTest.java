package io.xrpc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.internal.Futures;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.ForkedProvider;
import io.xrpc.testing.GateService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25's overload figure in its short form: a provider in a JVM of its own whose method holds
 * one of four "database connections" for 5 ms (it serves at most 800 calls a second), offered
 * three times that by an open-loop caller (2,400 calls a second, each sent on schedule whatever
 * the earlier ones did). With the adaptive concurrency limit the calls admitted keep near their
 * unloaded latency and the rest are refused at once; without it they queue for the connections.
 *
 * <p>The caller runs in a JVM of its own too ({@link #main}): the test JVM tracks every buffer
 * for leaks, which would add its own milliseconds to every round trip measured.
 */
class OverloadChaosTest {
    private static final int WORK_MILLIS = 5;
    private static final int CAPACITY_PER_SECOND = 4 * 1000 / WORK_MILLIS;

    /** What one open-loop run saw after its first {@code skipMillis}. */
    private record Run(long[] admittedNanos, long[] refusedNanos, Map<String, AtomicInteger> errors, double seconds) {
        long p99(long[] sorted) {
            return at(sorted, 0.99);
        }

        static long at(long[] sorted, double q) {
            return sorted.length == 0
                    ? 0
                    : sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1))];
        }

        String encode() {
            return join(admittedNanos) + "|" + join(refusedNanos) + "|" + seconds + "|" + errors;
        }

        static Run decode(String line) {
            String[] p = line.split("\\|", 4);
            return new Run(
                    split(p[0]),
                    split(p[1]),
                    p[3].equals("{}") ? Map.of() : Map.of(p[3], new AtomicInteger(1)),
                    Double.parseDouble(p[2]));
        }

        private static String join(long[] a) {
            return Arrays.stream(a).mapToObj(Long::toString).collect(Collectors.joining(","));
        }

        private static long[] split(String s) {
            return s.isEmpty()
                    ? new long[0]
                    : Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
        }

        String describe(String what) {
            return String.format(
                    "%s: %d admitted (%.0f/s), p50 %.2f ms, p99 %.2f ms; %d refused, p50 %.3f ms, p90"
                            + " %.3f ms, p99 %.3f ms; other %s",
                    what,
                    admittedNanos.length,
                    admittedNanos.length / seconds,
                    ms(at(admittedNanos, 0.5)),
                    ms(p99(admittedNanos)),
                    refusedNanos.length,
                    ms(at(refusedNanos, 0.5)),
                    ms(at(refusedNanos, 0.9)),
                    ms(p99(refusedNanos)),
                    errors);
        }
    }

    /** The forked caller: {@code port perSecond millis skipMillis}; prints one line per run. */
    public static void main(String[] args) throws Exception {
        try (RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + args[0])
                            .cluster("failfast")
                            .timeout(Duration.ofSeconds(5))
                            .build());
            Run r = openLoop(s, Integer.parseInt(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]));
            System.out.println("RUN " + r.encode());
        }
    }

    private static Run forked(ForkedJvm provider, int perSecond, long millis, long skipMillis) throws Exception {
        Process p = new ProcessBuilder(ForkedJvm.command(
                        List.of("-Xmx256m"),
                        OverloadChaosTest.class,
                        Integer.toString(provider.port()),
                        Integer.toString(perSecond),
                        Long.toString(millis),
                        Long.toString(skipMillis)))
                .redirectErrorStream(true)
                .start();
        try {
            String line;
            String run = null;
            StringBuilder all = new StringBuilder();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                while ((line = out.readLine()) != null) {
                    all.append(line).append('\n');
                    if (line.startsWith("RUN ")) {
                        run = line.substring(4);
                    }
                }
            }
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(run).as("the caller's output:%n%s", all).isNotNull();
            return Run.decode(run);
        } finally {
            p.destroyForcibly();
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static Run openLoop(GateService s, int perSecond, long millis, long skipMillis) throws Exception {
        ConcurrentLinkedQueue<Long> admitted = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> refused = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        long period = TimeUnit.SECONDS.toNanos(1) / perSecond;
        long t0 = System.nanoTime();
        long end = t0 + TimeUnit.MILLISECONDS.toNanos(millis);
        long skipUntil = t0 + TimeUnit.MILLISECONDS.toNanos(skipMillis);
        for (long i = 0; ; i++) {
            long at = t0 + i * period;
            if (at >= end) {
                break;
            }
            long wait = at - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            long sent = System.nanoTime();
            boolean counted = sent >= skipUntil;
            CompletableFuture<String> f = s.pooled(WORK_MILLIS);
            calls.add(f);
            f.whenComplete((v, t) -> {
                long took = System.nanoTime() - sent;
                if (!counted) {
                    return;
                }
                if (t == null) {
                    admitted.add(took);
                } else if (Futures.cause(t) instanceof RpcException e && e.status() == RpcStatus.SERVER_BUSY) {
                    refused.add(took);
                } else {
                    errors.computeIfAbsent(String.valueOf(Futures.cause(t)), k -> new AtomicInteger())
                            .incrementAndGet();
                }
            });
        }
        for (CompletableFuture<String> f : calls) {
            try {
                f.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // counted above
            }
        }
        long[] a = admitted.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] r = refused.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Run(a, r, errors, (millis - skipMillis) / 1000.0);
    }

    @Test
    @Timeout(240)
    void atThreeTimesCapacityTheAdaptiveLimitKeepsAdmittedCallsNearTheirUnloadedLatency() throws Exception {
        try (ForkedJvm adaptive = new ForkedJvm(ForkedProvider.class, "adaptive", "adaptive");
                ForkedJvm plain = new ForkedJvm(ForkedProvider.class, "plain", "noqueue")) {
            // The first 2 s of each run warm the JVMs up (a fresh provider may stall for JIT and class loading).
            Run unloaded = forked(adaptive, 200, 5000, 2000);
            Run overload = forked(adaptive, 3 * CAPACITY_PER_SECOND, 5000, 2000);
            Run without = forked(plain, 3 * CAPACITY_PER_SECOND, 5000, 2000);
            System.out.println(unloaded.describe("unloaded, 200/s"));
            System.out.println(overload.describe("3x capacity (" + 3 * CAPACITY_PER_SECOND + "/s), adaptive limit"));
            System.out.println(without.describe("3x capacity, no limit"));
            long p99Unloaded = unloaded.p99(unloaded.admittedNanos());
            assertThat(without.p99(without.admittedNanos()))
                    .as("without a limit the admitted calls queue: the" + " scenario overloads")
                    .isGreaterThan(2 * p99Unloaded);
            assertThat(overload.errors()).isEmpty();
            assertThat(overload.p99(overload.admittedNanos()))
                    .as("p99 of admitted calls against 2x the unloaded" + " p99 of %.2f ms", ms(p99Unloaded))
                    .isLessThanOrEqualTo(2 * p99Unloaded);
            assertThat(overload.refusedNanos().length)
                    .as("the excess is refused")
                    .isPositive();
            // Refused on the provider's event loop before the body is read: as a round trip it costs
            // what a full executor's refusal costs (the run without a limit), and a small part of a
            // call served. Ratios within the run, not a wall-clock bound; the figures are printed.
            long refusalP90 = Run.at(overload.refusedNanos(), 0.9);
            assertThat(refusalP90)
                    .as("p90 of a refusal against twice that of a full executor's refusal")
                    .isLessThanOrEqualTo(2 * Run.at(without.refusedNanos(), 0.9));
            assertThat(refusalP90)
                    .as("p90 of a refusal against a quarter of the unloaded median call")
                    .isLessThan(Run.at(unloaded.admittedNanos(), 0.5) / 4);
            assertThat(overload.admittedNanos().length / overload.seconds())
                    .as("admitted calls a second, against" + " a capacity of %d", CAPACITY_PER_SECOND)
                    .isGreaterThan(0.5 * CAPACITY_PER_SECOND);
        }
    }
}
