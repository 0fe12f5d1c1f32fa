package io.xrpc.benchmark.stress;

import io.xrpc.client.GenericException;
import io.xrpc.common.RpcException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Measures one level: {@code n} caller threads running one call in a closed loop (or at a fixed
 * rate, latency then counted from each call's intended start), every latency into an
 * HdrHistogram, every error counted by type, and every caller stopped within its deadline.
 */
final class LevelRunner {
    private final double rate;
    private final long maxCalls;
    private final Duration timeout;
    private final boolean quiet;

    /**
     * @param rate     calls per second over all callers; 0 for a closed loop
     * @param maxCalls stop a slice after this many calls; 0 for no limit
     * @param timeout  the calls' deadline: callers that do not stop within twice it mean a call hangs
     */
    LevelRunner(double rate, long maxCalls, Duration timeout, boolean quiet) {
        this.rate = rate;
        this.maxCalls = maxCalls;
        this.timeout = timeout;
        this.quiet = quiet;
    }

    /**
     * Runs {@code n} callers for {@code length} and returns what they did; its time runs until the
     * last caller has stopped, so that the calls still finishing then count against it too.
     */
    Slice measure(String contender, String scenario, int n, StressTool.Call call, Duration length, boolean measured)
            throws InterruptedException {
        return run(contender, scenario, n, call, length, measured, null);
    }

    /**
     * Warms a level: runs its callers unmeasured until {@code rule} finds their throughput steady
     * (or its maximum is reached); the slice's timeline is the warm-up's course and
     * {@link Slice#steady()} says which ended it.
     */
    Slice warm(String contender, String scenario, int n, StressTool.Call call, Warmup rule)
            throws InterruptedException {
        return run(contender, scenario, n, call, rule.max(), false, rule);
    }

    private Slice run(
            String contender,
            String scenario,
            int n,
            StressTool.Call call,
            Duration length,
            boolean measured,
            Warmup rule)
            throws InterruptedException {
        Recorder recorder = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
        Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong calls = new AtomicLong();
        AtomicInteger active = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        long intervalNanos = rate > 0 ? (long) (1e9 * n / rate) : 0;
        long startMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        for (int t = 0; t < n; t++) {
            // At a fixed rate the callers' schedules are spread over one interval, not all due at once.
            long phase = intervalNanos * t / n;
            Thread th = new Thread(
                    () -> {
                        try {
                            long intended = System.nanoTime() + phase;
                            while (!stop.get()) {
                                long begin;
                                if (intervalNanos > 0) {
                                    long wait = intended - System.nanoTime();
                                    if (wait > 0) {
                                        LockSupport.parkNanos(wait);
                                    }
                                    begin = intended; // latency counts from when the call should have started
                                    intended += intervalNanos;
                                } else {
                                    begin = System.nanoTime();
                                }
                                active.incrementAndGet();
                                try {
                                    call.run();
                                    recorder.recordValue(
                                            Math.min(System.nanoTime() - begin, TimeUnit.SECONDS.toNanos(60)));
                                    // --calls bounds the measured slices; --max-warmup bounds a warm-up.
                                    if (measured && maxCalls > 0 && calls.incrementAndGet() >= maxCalls) {
                                        stop.set(true);
                                    }
                                } catch (Exception e) {
                                    String type = e instanceof RpcException r
                                            ? "RpcException " + r.status()
                                            : e instanceof GenericException g
                                                    ? "APPLICATION_ERROR " + g.className()
                                                    : e.getClass().getSimpleName();
                                    errors.computeIfAbsent(type, k -> {
                                                System.err.println("first " + type + " in " + contender + " " + scenario
                                                        + ": " + e);
                                                return new LongAdder();
                                            })
                                            .increment();
                                } finally {
                                    active.decrementAndGet();
                                }
                            }
                        } finally {
                            done.countDown();
                        }
                    },
                    "caller-" + t);
            th.setDaemon(true);
            th.start();
        }
        long end = start + length.toNanos();
        Histogram total = null;
        List<Second> timeline = new ArrayList<>();
        long errorsSoFar = 0;
        long pointStart = start;
        boolean steady = rule == null;
        while (System.nanoTime() < end && !stop.get()) {
            // A second a point; the last takes the whole rest (up to 1.5 s), so none is a sliver.
            long leftMillis = (end - System.nanoTime() + 999_999) / 1_000_000;
            Thread.sleep(Math.max(1, leftMillis < 1500 ? leftMillis : 1000));
            Histogram interval = recorder.getIntervalHistogram();
            total = total == null ? interval.copy() : add(total, interval);
            long now = System.nanoTime();
            long errorsNow = errors.values().stream().mapToLong(LongAdder::sum).sum();
            boolean any = interval.getTotalCount() > 0;
            timeline.add(new Second(
                    System.currentTimeMillis(),
                    interval.getTotalCount() * 1e9 / (now - pointStart),
                    any ? interval.getValueAtPercentile(99) / 1e3 : 0,
                    errorsNow - errorsSoFar,
                    any ? interval.getValueAtPercentile(50) / 1e3 : 0,
                    any ? interval.getValueAtPercentile(90) / 1e3 : 0,
                    any ? interval.getValueAtPercentile(99.9) / 1e3 : 0,
                    any ? interval.getMaxValue() / 1e3 : 0,
                    active.get()));
            errorsSoFar = errorsNow;
            pointStart = now;
            if (measured && !quiet) {
                System.out.printf(
                        "  %-9s %-10s %4d threads  %8.0f calls/s  p99 %8.1f us  errors %d%n",
                        contender,
                        scenario,
                        n,
                        interval.getTotalCount()
                                * 1e9
                                / Math.max(1, interval.getEndTimeStamp() * 1e6 - interval.getStartTimeStamp() * 1e6),
                        interval.getValueAtPercentile(99) / 1e3,
                        errorsNow);
            }
            if (rule != null && now - start >= rule.min().toNanos()) {
                if (rule.steady(timeline, rate > 0)) {
                    steady = true;
                    break;
                }
                if (rule.hopeless(timeline)) {
                    break; // nothing has succeeded for a whole window: there is nothing to warm
                }
            }
        }
        stop.set(true);
        if (!done.await(timeout.toMillis() * 2 + 10_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("callers did not stop within their deadline: a call hangs");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        total = total == null ? recorder.getIntervalHistogram() : add(total, recorder.getIntervalHistogram());
        Map<String, Long> errorCounts = new LinkedHashMap<>();
        errors.forEach((k, v) -> errorCounts.put(k, v.sum()));
        return new Slice(
                total,
                errorCounts,
                seconds,
                startMillis,
                Slice.Costs.UNKNOWN,
                Slice.Costs.UNKNOWN,
                List.copyOf(timeline),
                steady);
    }

    private static Histogram add(Histogram total, Histogram interval) {
        total.add(interval);
        return total;
    }
}
