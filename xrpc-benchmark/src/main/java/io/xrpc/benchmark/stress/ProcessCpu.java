package io.xrpc.benchmark.stress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time a process has used, from {@code /proc/<pid>/stat} (user plus system time), so the
 * stress tool can report CPU per call for each JVM it forks and for its own. Linux only; elsewhere
 * it reports nothing.
 */
final class ProcessCpu {
    /** Clock ticks per second of /proc's times: {@code getconf CLK_TCK}, 100 on every usual kernel. */
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private ProcessCpu() {
    }

    /** Nanoseconds of CPU {@code pid} has used, or -1 when that cannot be read. */
    static long nanos(long pid) {
        if (pid < 0) {
            return -1;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            // The command name (field 2) may hold spaces; the fields after it start past its ')'.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15
            return ticks * 1_000_000_000L / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | RuntimeException | InterruptedException e) {
            return 100;
        }
    }
}
