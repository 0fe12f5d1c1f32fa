package io.xrpc.benchmark.stress;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 *                   element when the level ran as one stretch), so that a ratio to another
 *                   contender can be read round by round
 * @param roundStartMillis when each slice began ({@link System#currentTimeMillis()})
 * @param timeline   the course of the measured slices, about a point a second, in the order they ran
 */
public record Level(String contender, String scenario, int threads, long calls, long errorCount,
                    Map<String, Long> errors, double seconds, double throughput, double p50Micros,
                    double p90Micros, double p99Micros, double p999Micros, double maxMicros,
                    double providerCpuMicrosPerCall, double clientCpuMicrosPerCall,
                    double providerAllocBytesPerCall, double clientAllocBytesPerCall,
                    List<Double> roundThroughputs, List<Long> roundStartMillis, List<Second> timeline) {

    /**
     * The sum of {@code slices}, in the order they ran: calls, errors and time added up, latencies
     * merged. A slice's cost runs from its start to the next slice's start (the last one's, to its
     * end), so that what a JVM does after its callers stop (a collection, a compilation) is charged
     * to it, not lost between slices.
     */
    static Level of(String contender, String scenario, int threads, List<Slice> slices) {
        Histogram latencies = null;
        Map<String, Long> errors = new LinkedHashMap<>();
        double seconds = 0;
        long[] cost = new long[4];
        for (int i = 0; i < slices.size(); i++) {
            Slice s = slices.get(i);
            if (latencies == null) {
                latencies = s.latencies().copy();
            } else {
                latencies.add(s.latencies());
            }
            s.errors().forEach((k, v) -> errors.merge(k, v, Long::sum));
            seconds += s.seconds();
            long[] from = s.start().values();
            long[] to = (i + 1 < slices.size() ? slices.get(i + 1).start() : s.end()).values();
            for (int c = 0; c < cost.length; c++) {
                cost[c] = cost[c] < 0 || from[c] < 0 || to[c] < 0 ? -1 : cost[c] + to[c] - from[c];
            }
        }
        long calls = latencies.getTotalCount();
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        return new Level(contender, scenario, threads, calls, errorCount, errors, seconds, calls / seconds,
                latencies.getValueAtPercentile(50) / 1e3, latencies.getValueAtPercentile(90) / 1e3,
                latencies.getValueAtPercentile(99) / 1e3, latencies.getValueAtPercentile(99.9) / 1e3,
                latencies.getMaxValue() / 1e3, perCall(cost[0], calls, 1e3), perCall(cost[1], calls, 1e3),
                perCall(cost[2], calls, 1), perCall(cost[3], calls, 1),
                slices.stream().map(Slice::throughput).toList(), slices.stream().map(Slice::startMillis).toList(),
                slices.stream().flatMap(s -> s.timeline().stream()).toList());
    }

    private static double perCall(long cost, long calls, double unit) {
        return cost < 0 || calls == 0 ? -1 : cost / unit / calls;
    }

    /** A one-line summary for the tool's progress output. */
    String summary() {
        return String.format("%s %s %d threads: %.0f calls/s, p50 %.1f us, p99 %.1f us, %d errors %s", contender,
                scenario, threads, throughput, p50Micros, p99Micros, errorCount, errors);
    }
}
