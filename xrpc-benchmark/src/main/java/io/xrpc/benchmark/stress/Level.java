package io.xrpc.benchmark.stress;

import java.util.Map;

/**
 * The measured result of one contender, scenario and thread count.
 *
 * @param throughput successful calls per second over the measured window
 * @param p50Micros  and the other percentiles: latency in microseconds (corrected for coordinated
 *                   omission in fixed-rate mode, where latency counts from the intended start)
 */
public record Level(String contender, String scenario, int threads, long calls, long errorCount,
                    Map<String, Long> errors, double seconds, double throughput, double p50Micros,
                    double p90Micros, double p99Micros, double p999Micros, double maxMicros) {
}
