package io.xrpc.transport.netty;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the transport learns about one exported method while serving it: about how large its
 * responses are, which admission of a connection's later requests uses, and whether two problems
 * of the method were logged already. Each route holds the transport's as an opaque
 * {@link io.xrpc.transport.Routes.Route#transportState}, so that the server knows nothing
 * of what is in it, and it lives and goes with the route.
 */
final class RouteStats {
    /** The largest of the recent response sizes, decaying; 0 until the first response. */
    final ResponseSizeEstimate responseSize = new ResponseSizeEstimate();

    private final AtomicBoolean heldLoop = new AtomicBoolean();
    /** The method's adaptive concurrency limit, made at its first call when the server has them. */
    private volatile AdaptiveLimit limit;

    private final AtomicBoolean resultFailed = new AtomicBoolean();

    /** The method's adaptive concurrency limit, made now if need be, of at most {@code max} calls. */
    AdaptiveLimit adaptiveLimit(int max) {
        AdaptiveLimit l = limit;
        if (l == null) {
            synchronized (this) { // once per method
                if (limit == null) {
                    limit = new AdaptiveLimit(max);
                }
                l = limit;
            }
        }
        return l;
    }

    /** True the first time this NonBlocking method held its event loop too long, so that it is logged once. */
    boolean firstLoopHold() {
        return !heldLoop.get() && heldLoop.compareAndSet(false, true);
    }

    /** True the first time a result of this method could not be written, so that it is logged once. */
    boolean firstResultFailure() {
        return !resultFailed.get() && resultFailed.compareAndSet(false, true);
    }
}
