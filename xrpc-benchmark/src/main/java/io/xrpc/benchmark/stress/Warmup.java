package io.xrpc.benchmark.stress;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * When a level is warm: the rule its unmeasured calls run under before it is measured. A level
 * warms for at least {@code min}, and needs {@value #WINDOW} one-second points to be judged (so
 * at least about five seconds); from then on it is steady as soon as its last {@value #WINDOW}
 * points show no trend: the least-squares line through them rises (or falls) across them by at
 * most {@code tolerance} of their mean. The points are calls per second in a closed loop, and the
 * median latency at a fixed rate (where calls per second are the schedule's, warm or not). It
 * stops warming at {@code max} either way, or as soon as a whole window had no successful call,
 * and is then marked not steady; so is a level whose measured points then drift by more than the
 * tolerance ({@link #drift}). A trend, not a spread, because a level that is still speeding up (a
 * JIT at work, a pool growing) does so in steps with flat stretches between them, while a noisy but
 * settled level only scatters. JMH warms a fixed number of iterations and leaves the judging to
 * the reader; a stress run with several levels needs the judgement made for it.
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

    /**
     * Whether the last {@value #WINDOW} points show no trend beyond the tolerance: their calls per
     * second, or with {@code fixedRate} their median latency.
     */
    boolean steady(List<Second> points, boolean fixedRate) {
        if (points.size() < WINDOW) {
            return false;
        }
        List<Second> last = points.subList(points.size() - WINDOW, points.size());
        if (last.stream().anyMatch(s -> s.callsPerSecond() <= 0)) {
            return false; // a second without an answer has no latency, and is no steady throughput
        }
        double meanX = (WINDOW - 1) / 2.0;
        double meanY =
                last.stream().mapToDouble(s -> value(s, fixedRate)).average().orElse(0);
        double num = 0;
        double den = 0;
        for (int i = 0; i < WINDOW; i++) {
            num += (i - meanX) * (value(last.get(i), fixedRate) - meanY);
            den += (i - meanX) * (i - meanX);
        }
        double acrossWindow = num / den * (WINDOW - 1);
        return meanY > 0 && Math.abs(acrossWindow) <= tolerance * meanY;
    }

    /** Whether none of the last {@value #WINDOW} points had a successful call: a warm-up that cannot succeed. */
    boolean hopeless(List<Second> points) {
        return points.size() >= WINDOW
                && points.subList(points.size() - WINDOW, points.size()).stream()
                        .allMatch(s -> s.callsPerSecond() <= 0);
    }

    private static double value(Second s, boolean fixedRate) {
        return fixedRate ? s.p50Micros() : s.callsPerSecond();
    }

    /**
     * How far the measured points moved: the mean of their second half over the mean of their
     * first half, in percent of the first (0 with fewer than two points); of calls per second, or
     * with {@code fixedRate} of the median latency. A level whose first half had no successful call
     * and whose second half had some counts as +100%. A level that kept warming while measured
     * shows here even when its warm-up looked steady.
     */
    static double drift(List<Second> measured, boolean fixedRate) {
        int n = measured.size();
        if (n < 2) {
            return 0;
        }
        double first = 0;
        double second = 0;
        for (int i = 0; i < n / 2; i++) {
            first += value(measured.get(i), fixedRate);
            second += value(measured.get(n - 1 - i), fixedRate);
        }
        return first > 0 ? (second - first) / first * 100 : second > 0 ? 100 : 0;
    }

    /** The rule in words, for the report. */
    String describe() {
        return String.format(
                Locale.ROOT,
                "at least %s, then until %d one-second points in a row show no"
                        + " trend (their fitted line moves less than %.0f%% of their mean across them: calls per second, or the"
                        + " median latency at a fixed rate); at most %s. A level that did not get there, or whose measured"
                        + " points then moved by more than that, is marked not steady",
                DurationConverter.text(min),
                WINDOW,
                tolerance * 100,
                DurationConverter.text(max));
    }
}
