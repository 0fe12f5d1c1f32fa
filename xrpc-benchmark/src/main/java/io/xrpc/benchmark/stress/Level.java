package io.xrpc.benchmark.stress;

import java.util.Map;

/**
 * The measured result of one contender, scenario and thread count.
 *
 * @param throughput successful calls per second over the measured window
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
 */
public record Level(String contender, String scenario, int threads, long calls, long errorCount,
                    Map<String, Long> errors, double seconds, double throughput, double p50Micros,
                    double p90Micros, double p99Micros, double p999Micros, double maxMicros,
                    double providerCpuMicrosPerCall, double clientCpuMicrosPerCall,
                    double providerAllocBytesPerCall, double clientAllocBytesPerCall) {

    /** This level under another contender name (XRpc's, once per serializer). */
    Level as(String name) {
        return new Level(name, scenario, threads, calls, errorCount, errors, seconds, throughput, p50Micros,
                p90Micros, p99Micros, p999Micros, maxMicros, providerCpuMicrosPerCall, clientCpuMicrosPerCall,
                providerAllocBytesPerCall, clientAllocBytesPerCall);
    }

    /** This level with the CPU and heap allocation per call of the provider's and the callers' JVMs. */
    Level withCost(double providerCpu, double clientCpu, double providerAlloc, double clientAlloc) {
        return new Level(contender, scenario, threads, calls, errorCount, errors, seconds, throughput, p50Micros,
                p90Micros, p99Micros, p999Micros, maxMicros, providerCpu, clientCpu, providerAlloc, clientAlloc);
    }
}
