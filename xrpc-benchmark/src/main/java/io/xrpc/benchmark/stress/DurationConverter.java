package io.xrpc.benchmark.stress;

import java.time.Duration;
import picocli.CommandLine;

/** Reads {@code 10s}, {@code 500ms}, {@code 2m} or an ISO-8601 duration. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String v) {
        String s = v.trim().toLowerCase();
        if (s.startsWith("pt")) {
            return Duration.parse(v);
        }
        if (s.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
        }
        if (s.endsWith("s")) {
            return Duration.ofMillis((long) (Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
        }
        if (s.endsWith("m")) {
            return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
        }
        throw new CommandLine.TypeConversionException("'" + v + "' (expected: 10s, 500ms, 2m or PT10S)");
    }

    /** {@code 5 s} or {@code 500 ms}: a duration as the report writes it. */
    static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
