package io.xrpc.transport.netty;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An adaptive concurrency limit for one exported method, a gradient limit in the manner of
 * Netflix's concurrency-limits (its first Gradient limit): how many of its calls may run at once
 * follows how their latency compares with its unloaded latency, the least of the last
 * {@link #WINDOW} to {@code 2 * WINDOW} samples. Each sample moves the limit a fifth of the way
 * towards {@code limit * gradient + 1}, where the gradient is {@link #TOLERANCE} times
 * the unloaded latency over the recent latency (a moving average), kept between 0.5 and 1: while
 * latency stays within the tolerance the limit grows, and when calls queue for something the
 * limit shrinks, so the calls admitted keep near their unloaded latency and the excess is refused
 * {@code SERVER_BUSY} before it is read, which a client's failover may retry on another
 * provider. While fewer than half of the limit are in use the method is not the constraint and
 * the limit does not move. Samples are calls that ran to an answer (a result, the method's
 * exception, or its deadline passing): fast refusals (credentials, unreadable arguments) would
 * make the unloaded latency look shorter than the method's.
 *
 * <p>At equilibrium on a resource of fixed capacity c calls (a pool of c connections to a
 * database, c cores), the limit settles near 1.25c + 1: 6 for c = 4, where the calls' mean
 * latency is about 1.5 times the unloaded. A method whose latency is naturally spread (its least
 * far below its average) is held far below its capacity under load: with latencies spread evenly
 * over 20-80 ms the limit falls to its floor of 2. That is why it is opt-in. (Gentler settings
 * were measured in {@code OverloadChaosTest}: {@code + sqrt(limit)} in place of {@code + 1} would
 * hold that method near 4, but let the admitted calls' p99 reach 1.8-2.3 times the unloaded p99,
 * and a tolerance of 1.5 as well, 2.2 times, over the 2 times asked of it.)
 *
 * <p>Per call: one atomic increment to admit, one decrement and a sample to end. Samples update
 * the estimates under a try-lock: a sample arriving while another is being applied is dropped
 * rather than waited for. No lock is ever waited on.
 */
final class AdaptiveLimit {
    /** How much above the unloaded latency the recent latency may be before the limit shrinks. */
    static final double TOLERANCE = 1.25;
    /** Calls per window of the unloaded-latency minimum. */
    static final int WINDOW = 500;
    /** The limit's first value and floor. */
    static final int INITIAL = 20;
    static final int MIN = 2;
    /** Weight of a new sample in the recent latency. */
    private static final double SAMPLE_WEIGHT = 0.1;
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
        double unloaded = Math.min(previousMin, windowMin);
        double gradient = Math.max(0.5, Math.min(1.0, TOLERANCE * unloaded / recentNanos));
        if (running < estimate / 2) {
            return; // not limited by this limit: no reason to move it
        }
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
