package io.xrpc.transport.netty;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An adaptive concurrency limit for one exported method, a gradient limit in the manner of
 * Netflix's concurrency-limits: how many of its calls may run at once follows how their recent
 * latency (a moving average) compares with the method's unloaded latency. Each sample moves the
 * limit a fifth of the way towards {@code limit * gradient + 1}, the gradient being
 * {@link #TOLERANCE} times the unloaded latency over the recent one, kept between 0.5 and 1:
 * while latency stays within the tolerance the limit grows, and when calls queue for something
 * the limit shrinks, so the calls admitted keep near their unloaded latency and the excess is
 * refused {@code SERVER_BUSY} before it is read, which a client's failover may retry on another
 * provider. While fewer than half of the limit are in use the method is not the constraint and the
 * limit does not move.
 *
 * <p>The unloaded latency is the mean latency of calls that ran alone (no other of the method in
 * flight when it was admitted nor when it ended: they queued behind nothing of it; a moving
 * average over about the last hundred), once {@link #MIN_UNLOADED_SAMPLES} did; until then the
 * least latency of the last {@link #WINDOW} to {@code 2 * WINDOW} samples. The mean is what keeps a
 * method whose latency is naturally spread (a least far below its average) from being taken for a
 * queueing one; the least alone holds such a method at the floor ({@code AdaptiveLimitTest}:
 * latencies spread over 20-80 ms that do not rise with load keep the limit at 146-200 of 200 with
 * the mean known, and at 2 overloaded from the first call, until load falls enough for a call to
 * run alone). Samples are calls that ran to an answer (a result, the method's exception, or its
 * deadline passing): fast refusals (credentials, unreadable arguments) would make it look faster.
 *
 * <p>At equilibrium on a resource of fixed capacity c calls (a pool of c connections to a
 * database, c cores) the limit settles near 1.1c + 1 (5-6 for c = 4). In {@code OverloadChaosTest}
 * (3x a pool of four) the admitted calls' p99 stayed within 0.93-1.14 times the unloaded p99; a
 * tolerance of 1.25 had let it reach 1.6-2.2 times, over the 2 times asked of it.
 *
 * <p>Per call: one atomic increment to admit, one decrement and a sample to end. Samples update
 * the estimates under a try-lock: a sample arriving while another is being applied is dropped
 * rather than waited for. No lock is ever waited on.
 */
final class AdaptiveLimit {
    /** How much above the unloaded latency the recent latency may be before the limit shrinks. */
    static final double TOLERANCE = 1.1;
    /** Calls per window of the unloaded-latency minimum. */
    static final int WINDOW = 500;
    /** The limit's first value and floor. */
    static final int INITIAL = 20;

    static final int MIN = 2;
    /** Weight of a new sample in the recent latency. */
    private static final double SAMPLE_WEIGHT = 0.1;
    /** Weight of a new sample in the unloaded mean. */
    private static final double UNLOADED_WEIGHT = 0.01;
    /** Calls that ran alone before their mean, rather than the least latency, is the unloaded latency. */
    static final int MIN_UNLOADED_SAMPLES = 50;
    /** Weight of a new target in the limit. */
    private static final double SMOOTHING = 0.2;

    private final int max;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean updating = new AtomicBoolean();
    /** The limit as admission reads it. */
    private volatile int limit;
    // Guarded by updating.
    private double estimate;
    private double recentNanos;
    /** Mean latency of calls that ran alone: the method's own, queueing aside. */
    private double unloadedMean;

    private int unloadedSamples;
    private long windowMin = Long.MAX_VALUE;
    private long previousMin = Long.MAX_VALUE;
    private int inWindow;

    AdaptiveLimit(int max) {
        this.max = Math.max(MIN, max);
        this.estimate = Math.min(INITIAL, this.max);
        this.limit = (int) estimate;
    }

    /**
     * Admits a call if fewer than the limit run: returns the calls in flight with it (1 when it is
     * alone), or 0 when it is refused. The caller must {@link #release} an admitted one.
     */
    int tryAcquire() {
        int lim = limit;
        for (; ; ) {
            int n = inFlight.get();
            if (n >= lim) {
                return 0;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return n + 1;
            }
        }
    }

    /**
     * An admitted call ended after {@code nanos} from admission; negative when it never ran (no
     * sample). {@code admittedAlone}: no other call of the method was in flight when it was admitted.
     */
    void release(long nanos, boolean admittedAlone) {
        int running = inFlight.decrementAndGet();
        if (nanos < 0 || !updating.compareAndSet(false, true)) {
            return;
        }
        try {
            sample(nanos, running + 1, admittedAlone);
        } finally {
            updating.set(false);
        }
    }

    private void sample(long nanos, int running, boolean admittedAlone) {
        long rtt = Math.max(1, nanos);
        recentNanos = recentNanos == 0 ? rtt : recentNanos + SAMPLE_WEIGHT * (rtt - recentNanos);
        windowMin = Math.min(windowMin, rtt);
        if (++inWindow >= WINDOW) {
            previousMin = windowMin;
            windowMin = Long.MAX_VALUE;
            inWindow = 0;
        }
        if (admittedAlone && running == 1) {
            // Alone when admitted and when it ended: it queued behind none of its method's calls
            // (a call that merely ended last after a burst waited behind the others: not this).
            unloadedMean = unloadedSamples == 0 ? rtt : unloadedMean + UNLOADED_WEIGHT * (rtt - unloadedMean);
            if (unloadedSamples < MIN_UNLOADED_SAMPLES) {
                unloadedSamples++;
            }
        }
        if (running < estimate / 2) {
            return; // not limited by this limit: no reason to move it
        }
        double unloaded = unloadedSamples >= MIN_UNLOADED_SAMPLES ? unloadedMean : Math.min(previousMin, windowMin);
        double gradient = Math.max(0.5, Math.min(1.0, TOLERANCE * unloaded / recentNanos));
        double target = estimate * gradient + 1;
        estimate = Math.max(MIN, Math.min(max, estimate * (1 - SMOOTHING) + target * SMOOTHING));
        limit = (int) estimate;
    }

    /** The limit now. */
    int limit() {
        return limit;
    }

    /** Calls admitted and not yet ended. */
    int inFlight() {
        return inFlight.get();
    }
}
