package io.xrpc.benchmark.stress;

/**
 * One point of a run's course, about a second long: what the report's over-time charts draw.
 * Fields added after the first version read as 0 from an older results.json.
 *
 * @param atMillis       when it ended ({@link System#currentTimeMillis()})
 * @param callsPerSecond successful calls per second in it
 * @param p99Micros      their 99th percentile latency in microseconds (0 when none succeeded)
 * @param errors         calls that failed in it
 * @param p50Micros      and the other percentiles of the calls that succeeded in it
 * @param active         calls under way as it ended: the callers waiting for an answer (in a
 *                       closed loop nearly all of them; at a fixed rate, how many of the callers
 *                       the rate keeps busy, at most their number)
 */
public record Second(
        long atMillis,
        double callsPerSecond,
        double p99Micros,
        long errors,
        double p50Micros,
        double p90Micros,
        double p999Micros,
        double maxMicros,
        int active) {}
