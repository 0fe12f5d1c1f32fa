package io.xrpc.config;

import io.xrpc.internal.Checks;
import java.time.Duration;

/**
 * Hedged calls, as gRPC's {@code hedgingPolicy}: when an {@link io.xrpc.common.Idempotent} call
 * has had no answer after a delay, the same call goes to another provider, the first answer is
 * taken and the attempts still waiting are cancelled. A provider that froze or stalls then costs
 * its callers the delay rather than the deadline. Never used for methods not marked
 * {@code @Idempotent}: those may not run twice.
 *
 * <p>The delay is fixed ({@link #after}) or follows the method's recent latency
 * ({@link #atPercentile}: the 95th percentile hedges about one call in twenty). A failed attempt
 * that may be retried sends the next one at once. Every hedge spends a token of the reference's
 * {@link io.xrpc.cluster.RetryBudget}, so hedging stops when the providers are failing anyway.
 * Immutable.
 *
 * @param delay       the fixed delay, or {@code null} for a percentile
 * @param percentile  the percentile of recent answered attempts' latency, when {@code delay} is null
 * @param maxAttempts the most attempts one call makes in all, hedges and retries included: 2 to 5
 */
public record Hedging(Duration delay, double percentile, int maxAttempts) {
    /** Recent answered attempts a percentile delay needs before the first hedge. */
    public static final int MIN_SAMPLES = 32;

    public Hedging {
        if (delay != null) {
            Checks.checkPositive("hedging delay", delay);
        } else if (!(percentile >= 50 && percentile < 100)) {
            throw new IllegalArgumentException("hedging percentile: " + percentile + " (expected: 50 to 99.9)");
        }
        if (maxAttempts < 2 || maxAttempts > 5) {
            throw new IllegalArgumentException("hedging maxAttempts: " + maxAttempts + " (expected: 2 to 5, as gRPC)");
        }
    }

    /** One hedge after a fixed {@code delay}. */
    public static Hedging after(Duration delay) {
        return new Hedging(delay, 0, 2);
    }

    /**
     * One hedge once a call has waited longer than {@code percentile} of the method's recent
     * answered attempts (the last 256). No hedge until {@link #MIN_SAMPLES} attempts were answered.
     */
    public static Hedging atPercentile(double percentile) {
        return new Hedging(null, percentile, 2);
    }

    /** The same delay, with up to {@code maxAttempts} attempts in all. */
    public Hedging withMaxAttempts(int maxAttempts) {
        return new Hedging(delay, percentile, maxAttempts);
    }

    /** Parses {@code 50ms}, {@code 1s} (a fixed delay) or {@code p95} (a percentile), as properties give it. */
    public static Hedging parse(String text) {
        String t = text.trim();
        try {
            if (t.startsWith("p")) {
                return atPercentile(Double.parseDouble(t.substring(1)));
            }
            if (t.endsWith("ms")) {
                return after(Duration.ofMillis(
                        Long.parseLong(t.substring(0, t.length() - 2).trim())));
            }
            if (t.endsWith("s")) {
                return after(Duration.ofMillis(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000)));
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(
                "hedging: " + text + " (expected: a delay such as 50ms or 1s, or a" + " percentile such as p95)");
    }

    @Override
    public String toString() {
        return (delay != null ? "after " + delay.toMillis() + " ms" : "at p" + percentile) + ", up to " + maxAttempts
                + " attempts";
    }
}
