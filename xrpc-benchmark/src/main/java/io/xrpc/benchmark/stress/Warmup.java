package io.xrpc.benchmark.stress;

import java.time.Duration;
import java.util.List;

/**
 * When a level is warm: the rule its unmeasured calls run under before it is measured. A level
 * warms for at least {@code min}; from then on it is steady as soon as its last {@value #WINDOW}
 * one-second points show no trend: the least-squares line through their calls per second rises
 * (or falls) across them by at most {@code tolerance} of their mean. It stops warming at
 * {@code max} either way, and is then marked as not steady. A trend, not a spread, because a
 * level whose throughput is still climbing (a JIT at work, a pool growing) climbs in steps with
 * flat stretches between them, while a noisy but settled level only scatters. JMH warms a fixed
 * number of iterations and leaves the judging to the reader; a stress run with several levels
 * needs the judgement made for it.
 *
 * @param tolerance a fraction, such as 0.1 for 10%
 */
record Warmup(Duration min, Duration max, double tolerance) {
    /** Points the rule looks at: five seconds in a row. */
    static final int WINDOW = 5;

    Warmup {
        if (max.compareTo(min) < 0) {
            max = min; // a --warmup longer than --max-warmup: warm for --warmup
        }
    }

    /** Whether the last {@value #WINDOW} points' calls per second show no trend beyond the tolerance. */
    boolean steady(List<Second> points) {
        if (points.size() < WINDOW) {
            return false;
        }
        List<Second> last = points.subList(points.size() - WINDOW, points.size());
        double meanX = (WINDOW - 1) / 2.0;
        double meanY = last.stream().mapToDouble(Second::callsPerSecond).average().orElse(0);
        double num = 0;
        double den = 0;
        for (int i = 0; i < WINDOW; i++) {
            num += (i - meanX) * (last.get(i).callsPerSecond() - meanY);
            den += (i - meanX) * (i - meanX);
        }
        double acrossWindow = num / den * (WINDOW - 1);
        return meanY > 0 && Math.abs(acrossWindow) <= tolerance * meanY;
    }

    /**
     * How far the measured points' throughput moved: the mean of their second half over the mean of
     * their first half, in percent of the first (0 with fewer than two points). A level that kept
     * warming while measured shows here even when its warm-up looked steady.
     */
    static double drift(List<Second> measured) {
        int n = measured.size();
        if (n < 2) {
            return 0;
        }
        double first = 0;
        double second = 0;
        for (int i = 0; i < n / 2; i++) {
            first += measured.get(i).callsPerSecond();
            second += measured.get(n - 1 - i).callsPerSecond();
        }
        return first > 0 ? (second - first) / first * 100 : 0;
    }

    /** The rule in words, for the report. */
    String describe() {
        return String.format(java.util.Locale.ROOT, "at least %s, then until the calls per second of %d one-second"
                + " points in a row show no trend (their fitted line moves less than %.0f%% of their mean across them);"
                + " at most %s. A level that did not get there, or whose measured throughput then moved by more than"
                + " that, is marked not steady", DurationConverter.text(min), WINDOW,
                tolerance * 100, DurationConverter.text(max));
    }
}
