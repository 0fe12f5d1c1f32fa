package io.xrpc.transport.netty;

/**
 * A provider's latency as this client has seen it, for latency-aware balancing: a peak-sensitive
 * moving average (Finagle's "peak EWMA"). A slower answer than the estimate counts at once; faster
 * ones pull it down, by time ({@link #DECAY_NANOS}) and by at least 30% an answer. A call that failed without an answer counts as its
 * whole budget, so a provider that refuses or drops calls quickly does not look fast. While no
 * call to the provider is in flight the estimate decays towards nothing, so a provider that was
 * slow is tried again once it has rested (no starvation of one that recovered); while calls are
 * in flight it holds, so a frozen provider, answering nothing, does not start to look fast; and
 * {@link NettyClientTransport#latencyNanos} raises it to how long the provider has been silent
 * while calls wait on it, so a provider that stops answering looks slower with every millisecond.
 *
 * <p>Updated without locks: two racing answers may lose one of their samples, which an estimate
 * can afford. 0 until the first answer.
 */
final class LatencyEstimate {
    /** How quickly old samples fade: after this long they weigh 1/e. */
    static final long DECAY_NANOS = 2_000_000_000L;
    /** The most the old estimate weighs against one faster answer. */
    static final double MAX_WEIGHT = 0.7;
    /** Below this gap between answers time alone would weigh more than {@link #MAX_WEIGHT}: no exp() per call. */
    private static final long CAPPED_NANOS = (long) (DECAY_NANOS * Math.log(1 / MAX_WEIGHT));

    private volatile long nanos;
    private volatile long stamp;
    /**
     * The usual time of answered calls only (no penalties for failures or cancels): what a silent
     * provider is measured against. Rises at once, falls by an eighth an answer.
     */
    private volatile long answered;

    /** Answers recorded, counted up to {@link #KNOWN_AFTER} (racy: an estimate can afford a lost count). */
    private volatile int answers;
    /** Answers after which the usual answer time is taken as known: a fresh provider's first calls are slow. */
    static final int KNOWN_AFTER = 32;

    /** The usual time the provider took to answer; -1 until {@link #KNOWN_AFTER} answers were recorded. */
    long answeredNanos() {
        return answers < KNOWN_AFTER ? -1 : answered;
    }

    /** Records an answer's time, both as the estimate's sample and as the usual answer time. */
    void recordAnswer(long sampleNanos, long now) {
        long a = answered;
        answered = sampleNanos >= a ? sampleNanos : a - ((a - sampleNanos) >> 3);
        if (answers < KNOWN_AFTER) {
            answers++;
        }
        record(sampleNanos, now);
    }

    void record(long sampleNanos, long now) {
        long prev = nanos;
        long next;
        if (sampleNanos >= prev) {
            next = sampleNanos;
        } else {
            // Fades with time, and by at least 30% a sample: a peak (a first call that connected, a
            // collection) is gone after about ten answers at the usual rate.
            long elapsed = now - stamp;
            double w = elapsed <= CAPPED_NANOS ? MAX_WEIGHT : Math.exp(-elapsed / (double) DECAY_NANOS);
            next = (long) (prev * w + sampleNanos * (1 - w));
        }
        stamp = now;
        nanos = Math.max(1, next);
    }

    /** The estimate at {@code now}; decayed by the time since the last answer when nothing is in flight. */
    long estimate(long now, int inFlight) {
        long n = nanos;
        if (n == 0 || inFlight > 0) {
            return n;
        }
        return Math.max(1, (long) (n * Math.exp(-Math.max(0, now - stamp) / (double) DECAY_NANOS)));
    }
}
