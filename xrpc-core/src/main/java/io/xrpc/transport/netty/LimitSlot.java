package io.xrpc.transport.netty;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The slot one call holds in its method's {@link AdaptiveLimit}: taken as the call is admitted (or,
 * on a connection that has not authenticated, once the authenticator admitted it, so that a
 * stranger neither holds a slot nor feeds the limit a sample), and given back once, when the
 * call's result is ready (not when the answer is written, which a peer that does not read could
 * hold up), with its latency as a sample when it ran to an answer of its own. Made only under
 * adaptive concurrency.
 */
final class LimitSlot {
    private static final AtomicIntegerFieldUpdater<LimitSlot> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(LimitSlot.class, "released");

    private final AdaptiveLimit limit;
    private final long admittedAt = System.nanoTime();
    private final boolean alone;
    private volatile int released;

    private LimitSlot(AdaptiveLimit limit, boolean alone) {
        this.limit = limit;
        this.alone = alone;
    }

    /** A slot in {@code limit}, or null when it has none free. */
    static LimitSlot take(AdaptiveLimit limit) {
        int inFlight = limit.tryAcquire();
        return inFlight == 0 ? null : new LimitSlot(limit, inFlight == 1);
    }

    /** Gives the slot back, once; {@code sample}: the call ran to an answer of its own. */
    void release(boolean sample) {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            limit.release(sample ? System.nanoTime() - admittedAt : -1, alone);
        }
    }
}
