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
 * <p>The unloaded latency is the mean latency of calls that ran alone (none other of the method in
 * flight: they queued behind nothing of it), once {@link #MIN_UNLOADED_SAMPLES} did; until then the
 * least latency of the last {@link #WINDOW} to {@code 2 * WINDOW} samples. The mean is what keeps
 * a method whose latency is naturally spread (a least far below its average) from being taken for
 * a queueing one; the least alone holds such a method at the floor (see {@code AdaptiveLimitTest}:
 * latencies spread over 20-80 ms that do not rise with load keep the limit near 80 with the mean
 * known, and at 2 overloaded from the first call). Samples are calls that ran to an answer (a
 * result, the method's exception, or its deadline passing): fast refusals (credentials, unreadable
 * arguments) would make it look faster than it is.
 *
 * <p>At equilibrium on a resource of fixed capacity c calls (a pool of c connections to a
 * database, c cores) the limit settles near 1.1c + 1 (5-6 for c = 4), where the calls' mean
 * latency is about 1.4 times the unloaded. (Measured in {@code OverloadChaosTest}: a tolerance of
 * 1.25 let the admitted calls' p99 reach 1.6-2.2 times the unloaded p99 with the mean as baseline,
 * over the 2 times asked; 1.1 kept it at 1.3-1.4 times.)
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
    private static final double UNLOADED_WEIGHT = 0.05;
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

    /** Admits a call if fewer than the limit run; the caller must {@link #release} an admitted one. */
    boolean tryAcquire() {
        int lim = limit;
        for (;;) {
            int n = inFlight.get();
            if (n >= lim) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** An admitted call ended after {@code nanos} from admission; negative when it never ran (no sample). */
    void release(long nanos) {
        int running = inFlight.decrementAndGet();
        if (nanos < 0 || !updating.compareAndSet(false, true)) {
            return;
        }
        try {
            sample(nanos, running + 1);
        } finally {
            updating.set(false);
        }
    }

    private void sample(long nanos, int running) {
        long rtt = Math.max(1, nanos);
        recentNanos = recentNanos == 0 ? rtt : recentNanos + SAMPLE_WEIGHT * (rtt - recentNanos);
        windowMin = Math.min(windowMin, rtt);
        if (++inWindow >= WINDOW) {
            previousMin = windowMin;
            windowMin = Long.MAX_VALUE;
            inWindow = 0;
        }
        if (running == 1) {
            // A call that ran alone queued behind none of its method's: its latency is the method's own.
            unloadedMean = unloadedSamples == 0 ? rtt : unloadedMean + UNLOADED_WEIGHT * (rtt - unloadedMean);
            unloadedSamples++;
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
