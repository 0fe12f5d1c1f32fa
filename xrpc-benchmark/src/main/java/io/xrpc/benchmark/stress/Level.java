package io.xrpc.benchmark.stress;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The measured result of one contender, scenario and thread count: the sum of its {@link Slice}s.
 *
 * @param throughput successful calls per second over the measured slices
 * @param p50Micros  and the other percentiles: latency in microseconds (corrected for coordinated
 *                   omission in fixed-rate mode, where latency counts from the intended start)
 * @param providerCpuMicrosPerCall CPU the provider's JVM used per successful call, when it ran in a
 *                   JVM of its own; -1 otherwise
 * @param clientCpuMicrosPerCall CPU the callers' JVM used per successful call, when the provider ran
 *                   elsewhere; -1 otherwise
 * @param providerAllocBytesPerCall heap bytes the provider's JVM allocated per successful call,
 *                   when it ran in a JVM of its own; -1 otherwise
 * @param clientAllocBytesPerCall heap bytes the callers' JVM allocated per successful call (the
 *                   callers' own loop included, the same for every contender), when the provider
 *                   ran elsewhere; -1 otherwise
 * @param roundThroughputs calls per second of each slice, in the order of the run's rounds (one
 *                   element when the level ran as one stretch; with {@code --forks}, each round's
 *                   slices in fork order), so that a ratio to another contender can be read round
 *                   by round
 * @param roundStartMillis when each slice began ({@link System#currentTimeMillis()})
 * @param timeline   the course of the measured slices, about a point a second, in the order they ran
 * @param minMicros  and {@code meanMicros}, {@code p95Micros}: more of the latency's summary
 * @param rate       the arrival rate asked for (calls per second, all callers together) in a
 *                   fixed-rate run; 0 in a closed loop
 * @param warmup     the course of the warm-up before the measured slices, about a point a second
 * @param warmupSeconds how long the warm-up ran
 * @param drift      how far throughput moved while measured, in percent ({@link Warmup#drift})
 * @param steady     whether the warm-up ended steady and the measured points then moved by no
 *                   more than the rule's tolerance: a level that is not steady measured a
 *                   moving target, and a comparison with it says so (null in a results.json older
 *                   than the rule)
 * @param histogram  every successful call's latency in nanoseconds, an HdrHistogram compressed
 *                   in base64 ({@link #latencies()}): the distribution the report draws
 * @param forks      with {@code --forks} of two or more, what each callers' JVM measured; empty otherwise
 */
public record Level(
        String contender,
        String scenario,
        int threads,
        long calls,
        long errorCount,
        Map<String, Long> errors,
        double seconds,
        double throughput,
        double p50Micros,
        double p90Micros,
        double p99Micros,
        double p999Micros,
        double maxMicros,
        double providerCpuMicrosPerCall,
        double clientCpuMicrosPerCall,
        double providerAllocBytesPerCall,
        double clientAllocBytesPerCall,
        List<Double> roundThroughputs,
        List<Long> roundStartMillis,
        List<Second> timeline,
        double minMicros,
        double meanMicros,
        double p95Micros,
        double rate,
        List<Second> warmup,
        double warmupSeconds,
        double drift,
        Boolean steady,
        String histogram,
        List<Fork> forks) {

    /** Whether this level was steady; false when its results.json did not say (one older than the warm-up rule). */
    boolean wasSteady() {
        return Boolean.TRUE.equals(steady);
    }

    /** {@code yes}, {@code no (drift +40%)}, or {@code -} where the results.json did not say. */
    String steadyText() {
        return steady == null ? "-" : steady ? "yes" : String.format(Locale.ROOT, "no (drift %+.0f%%)", drift);
    }

    /** Whether it has latencies: none without a successful call. */
    boolean hasLatency() {
        return calls > 0;
    }

    /** Whether it has min, mean and p95 too: a results.json older than them has not. */
    boolean hasFullLatency() {
        return calls > 0 && histogram != null;
    }

    /**
     * The sum of {@code slices}, in the order they ran: calls, errors and time added up, latencies
     * merged. A slice's cost runs from its start to the next slice's start (the last one's, to its
     * end), so that what a JVM does after its callers stop (a collection, a compilation) is charged
     * to it, not lost between slices.
     */
    static Level of(
            String contender,
            String scenario,
            int threads,
            List<Slice> warms,
            Warmup rule,
            double rate,
            List<List<Slice>> byFork) {
        Histogram latencies = null;
        Map<String, Long> errors = new LinkedHashMap<>();
        double seconds = 0;
        long[] cost = new long[4];
        for (List<Slice> fork : byFork) { // each fork's counters are its own JVMs'
            for (int i = 0; i < fork.size(); i++) {
                Slice s = fork.get(i);
                if (latencies == null) {
                    latencies = s.latencies().copy();
                } else {
                    latencies.add(s.latencies());
                }
                s.errors().forEach((k, v) -> errors.merge(k, v, Long::sum));
                seconds += s.seconds();
                long[] from = s.start().values();
                long[] to = (i + 1 < fork.size() ? fork.get(i + 1).start() : s.end()).values();
                for (int c = 0; c < cost.length; c++) {
                    cost[c] = cost[c] < 0 || from[c] < 0 || to[c] < 0 ? -1 : cost[c] + to[c] - from[c];
                }
            }
        }
        // Round by round, each fork's slice of the round in fork order: another contender's list in the
        // same order pairs the same round and fork (the ratio by rounds); the timeline goes by time.
        List<Slice> rounds = new ArrayList<>();
        for (int r = 0; r < byFork.get(0).size(); r++) {
            for (List<Slice> f : byFork) {
                if (r < f.size()) {
                    rounds.add(f.get(r));
                }
            }
        }
        List<Slice> slices = rounds.stream()
                .sorted(Comparator.comparingLong(Slice::startMillis))
                .toList();
        long calls = latencies.getTotalCount();
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        List<Second> timeline =
                slices.stream().flatMap(s -> s.timeline().stream()).toList();
        boolean fixedRate = rate > 0;
        double drift = Warmup.drift(timeline, fixedRate);
        boolean warmed = warms.stream().allMatch(Slice::steady);
        // A fork's drift is its own: JVMs that settled at different speeds are the spread, not a trend.
        double worst = 0;
        for (List<Slice> f : byFork) {
            double d =
                    Warmup.drift(f.stream().flatMap(s -> s.timeline().stream()).toList(), fixedRate);
            worst = Math.abs(d) > Math.abs(worst) ? d : worst;
        }
        drift = byFork.size() > 1 ? worst : drift;
        boolean steady = warmed && Math.abs(drift) <= rule.tolerance() * 100;
        List<Fork> forks =
                byFork.size() < 2 ? List.of() : byFork.stream().map(Fork::of).toList();
        return new Level(
                contender,
                scenario,
                threads,
                calls,
                errorCount,
                errors,
                seconds,
                calls / seconds,
                latencies.getValueAtPercentile(50) / 1e3,
                latencies.getValueAtPercentile(90) / 1e3,
                latencies.getValueAtPercentile(99) / 1e3,
                latencies.getValueAtPercentile(99.9) / 1e3,
                latencies.getMaxValue() / 1e3,
                perCall(cost[0], calls, 1e3),
                perCall(cost[1], calls, 1e3),
                perCall(cost[2], calls, 1),
                perCall(cost[3], calls, 1),
                rounds.stream().map(Slice::throughput).toList(),
                rounds.stream().map(Slice::startMillis).toList(),
                timeline,
                calls == 0 ? 0 : latencies.getMinValue() / 1e3,
                calls == 0 ? 0 : latencies.getMean() / 1e3,
                latencies.getValueAtPercentile(95) / 1e3,
                rate,
                warms.stream().flatMap(w -> w.timeline().stream()).toList(),
                warms.stream().mapToDouble(Slice::seconds).max().orElse(0),
                drift,
                steady,
                Slice.text(latencies),
                forks);
    }

    /**
     * What one JVM of callers measured at this level ({@code --forks}): the spread between them is
     * the noise of a run. Latencies are 0 when the fork had no successful call (and are then not used).
     */
    public record Fork(double throughput, double p50Micros, double p90Micros, double p99Micros, double p999Micros) {
        static Fork of(List<Slice> slices) {
            Histogram h = slices.get(0).latencies().copy();
            double seconds = 0;
            for (int i = 0; i < slices.size(); i++) {
                if (i > 0) {
                    h.add(slices.get(i).latencies());
                }
                seconds += slices.get(i).seconds();
            }
            return new Fork(
                    h.getTotalCount() / seconds,
                    h.getValueAtPercentile(50) / 1e3,
                    h.getValueAtPercentile(90) / 1e3,
                    h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3);
        }
    }

    /** The latencies of {@link #histogram}, or null when this level has none (an older results.json). */
    Histogram latencies() {
        if (histogram == null || histogram.isEmpty()) {
            return null;
        }
        try {
            return Slice.histogram(histogram);
        } catch (DataFormatException | IllegalArgumentException e) {
            throw new IllegalArgumentException("a level's histogram does not read: " + e, e);
        }
    }

    private static double perCall(long cost, long calls, double unit) {
        return cost < 0 || calls == 0 ? -1 : cost / unit / calls;
    }

    /** A one-line summary for the tool's progress output: no braces, errors named only when there are any. */
    String summary() {
        StringBuilder failed = new StringBuilder();
        errors.forEach((k, v) -> failed.append(failed.isEmpty() ? " (" : ", ")
                .append(v)
                .append(' ')
                .append(k));
        return String.format(
                Locale.ROOT,
                "%s %s %d threads: %.0f calls/s, p50 %.1f us, p99 %.1f us, %s%s," + " warmed %.0f s%s",
                contender,
                scenario,
                threads,
                throughput,
                p50Micros,
                p99Micros,
                errorCount == 0 ? "no errors" : errorCount + " errors",
                failed.isEmpty() ? "" : failed + ")",
                warmupSeconds,
                wasSteady() ? "" : ", NOT STEADY: " + steadyText());
    }
}
