package io.xrpc.transport.netty;

import io.xrpc.protocol.codec.RpcCodec;
import java.util.concurrent.TimeUnit;

/**
 * How long a frame waited between its sender stamping it and this side reading it, beyond the
 * link's usual delay: a request that sat in a socket buffer while the server was frozen (a long GC
 * pause, SIGSTOP) shows a wait of that long.
 *
 * <p>The two clocks need not agree: for each stamped frame the difference "my clock minus the
 * sender's stamp" is the clocks' offset plus the transit time, so its smallest recent value is
 * the offset plus the fastest transit, and any frame's excess over that is time it spent waiting.
 * "Recent" is the last 30 to 60 seconds (two rotating windows, kept fresh by heartbeats on an
 * idle link), so drift between the clocks cannot add up; after a longer silence (a freeze) the
 * last window seen stays the baseline. What this cannot see: a wait that began before the first
 * stamped frame of the connection was read (nothing to compare with), and waits shorter than the
 * jitter of the link.
 *
 * <p>Confined to the connection's event loop.
 */
final class LinkDelay {
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

    private int min;
    private boolean hasMin;
    private int previousMin;
    private boolean hasPrevious;
    private long windowStart = System.nanoTime();

    /**
     * Records a frame stamped {@code sentAtMillis} (the sender's clock) that was read at
     * {@code nowNanos} (this side's {@link System#nanoTime()}), and returns how many
     * milliseconds it waited beyond the fastest frame of the last window or two; 0 for the first.
     */
    int waited(int sentAtMillis, long nowNanos) {
        int offset = RpcCodec.clockMillis(nowNanos) - sentAtMillis; // wraps consistently: compare by subtraction
        if (nowNanos - windowStart > WINDOW_NANOS) {
            // The window before keeps the last minimum seen, however long ago: after a long
            // freeze it is the only baseline there is (heartbeats keep a live link's fresh).
            if (hasMin) {
                previousMin = min;
                hasPrevious = true;
            }
            hasMin = false;
            windowStart = nowNanos;
        }
        if (!hasMin || offset - min < 0) {
            min = offset;
            hasMin = true;
        }
        int best = hasPrevious && previousMin - min < 0 ? previousMin : min;
        return Math.max(0, offset - best);
    }
}
