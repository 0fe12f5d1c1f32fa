package io.xrpc.benchmark.stress;

import java.time.Duration;

/**
 * CPU time a process has used (user plus system), from the JDK's {@link ProcessHandle.Info}, so
 * the stress tool can report CPU per call for each JVM it forks and for its own.
 */
final class ProcessCpu {
    private ProcessCpu() {}

    /** Nanoseconds of CPU {@code pid} has used, or -1 when that cannot be read. */
    static long nanos(long pid) {
        if (pid < 0) {
            return -1;
        }
        return ProcessHandle.of(pid)
                .flatMap(h -> h.info().totalCpuDuration())
                .map(Duration::toNanos)
                .orElse(-1L);
    }
}
