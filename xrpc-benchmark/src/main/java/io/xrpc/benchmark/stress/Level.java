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
 */
public record Level(String contender, String scenario, int threads, long calls, long errorCount,
                    Map<String, Long> errors, double seconds, double throughput, double p50Micros,
                    double p90Micros, double p99Micros, double p999Micros, double maxMicros,
                    double providerCpuMicrosPerCall, double clientCpuMicrosPerCall,
                    double providerAllocBytesPerCall, double clientAllocBytesPerCall,
                    List<Double> roundThroughputs) {

    /** The sum of {@code slices}: calls, errors, time and cost added up, latencies merged. */
    static Level of(String contender, String scenario, int threads, List<Slice> slices) {
        Histogram latencies = null;
        Map<String, Long> errors = new LinkedHashMap<>();
        double seconds = 0;
        for (Slice s : slices) {
            if (latencies == null) {
                latencies = s.latencies().copy();
            } else {
                latencies.add(s.latencies());
            }
            s.errors().forEach((k, v) -> errors.merge(k, v, Long::sum));
            seconds += s.seconds();
        }
        long calls = latencies.getTotalCount();
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        return new Level(contender, scenario, threads, calls, errorCount, errors, seconds, calls / seconds,
                latencies.getValueAtPercentile(50) / 1e3, latencies.getValueAtPercentile(90) / 1e3,
                latencies.getValueAtPercentile(99) / 1e3, latencies.getValueAtPercentile(99.9) / 1e3,
                latencies.getMaxValue() / 1e3,
                perCall(slices, Slice::providerCpuNanos, calls, 1e3), perCall(slices, Slice::clientCpuNanos, calls, 1e3),
                perCall(slices, Slice::providerAllocBytes, calls, 1), perCall(slices, Slice::clientAllocBytes, calls, 1),
                slices.stream().map(Slice::throughput).toList());
    }

    /** The sum of one cost over the slices, per call and in {@code unit}s; -1 when any slice lacks it. */
    private static double perCall(List<Slice> slices, java.util.function.ToLongFunction<Slice> cost, long calls,
                                  double unit) {
        long sum = 0;
        for (Slice s : slices) {
            long c = cost.applyAsLong(s);
            if (c < 0) {
                return -1;
            }
            sum += c;
        }
        return calls == 0 ? -1 : sum / unit / calls;
    }

    /** This level under another contender name (XRpc's, once per serializer). */
    Level as(String name) {
        return new Level(name, scenario, threads, calls, errorCount, errors, seconds, throughput, p50Micros,
                p90Micros, p99Micros, p999Micros, maxMicros, providerCpuMicrosPerCall, clientCpuMicrosPerCall,
                providerAllocBytesPerCall, clientAllocBytesPerCall, roundThroughputs);
    }
}
