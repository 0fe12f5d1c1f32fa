package io.xrpc.benchmark.stress;

/**
 * One point of a run's course, about a second long: what the report's over-time charts draw.
 *
 * @param atMillis       when it ended ({@link System#currentTimeMillis()})
 * @param callsPerSecond successful calls per second in it
 * @param p99Micros      their 99th percentile latency in microseconds (0 when none succeeded)
 * @param errors         calls that failed in it
 */
public record Second(long atMillis, double callsPerSecond, double p99Micros, long errors) {
}
