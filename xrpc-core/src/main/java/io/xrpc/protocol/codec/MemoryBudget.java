package io.xrpc.protocol.codec;

import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes a server may hold, over all its connections, in requests that are arriving or were read
 * and not yet run. Per-connection limits multiply by the number of connections (10,000 x 8 MiB);
 * this one does not. A frame whose body is over {@link #FREE_BODY} bytes reserves its bytes as
 * they arrive (a header alone costs nothing) and gives them back when the request is released, or
 * its connection closes first; smaller frames
 * cost nothing here (they are bounded by the connection's read batch), so the usual call never
 * touches the shared counter. Thread-safe.
 */
public final class MemoryBudget {
    /** Bodies up to this size do not reserve. */
    public static final int FREE_BODY = 16 * 1024;

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    /** The budget this one is a share of, which every reservation also takes from; or null. */
    private final MemoryBudget whole;

    /** @param limit bytes, at least {@link #FREE_BODY} */
    public MemoryBudget(long limit) {
        this(limit, null);
    }

    private MemoryBudget(long limit, MemoryBudget whole) {
        if (limit < FREE_BODY) {
            throw new IllegalArgumentException(
                    "memory budget: " + limit + " bytes (expected: at least " + FREE_BODY + ")");
        }
        this.limit = limit;
        this.whole = whole;
    }

    /**
     * A part of this budget that some connections reserve from (those that have not authenticated):
     * what they hold counts here and in this budget, and together they hold at most {@code limit},
     * so the rest stays for the others.
     */
    public MemoryBudget share(long limit) {
        return new MemoryBudget(Math.max(FREE_BODY, Math.min(limit, this.limit)), this);
    }

    /** The budget this one is a share of, or null. */
    public MemoryBudget whole() {
        return whole;
    }

    /**
     * Half of what the JVM allows for direct memory (where Netty's buffers live): the default. The
     * other half stays for responses, TLS, and the connections' small frames.
     */
    public static long defaultLimit() {
        return Math.max(FREE_BODY, PlatformDependent.maxDirectMemory() / 2);
    }

    public long limit() {
        return limit;
    }

    /** Bytes reserved now. */
    public long used() {
        return used.get();
    }

    /**
     * Reserves {@code bytes} if they fit; returns whether they did. What is reserved must be
     * {@link #release released} exactly once (a request's bytes arriving other than as frames:
     * an HTTP body).
     */
    public boolean tryReserve(long bytes) {
        long u;
        do {
            u = used.get();
            if (u + bytes > limit) {
                return false;
            }
        } while (!used.compareAndSet(u, u + bytes));
        if (whole != null && !whole.tryReserve(bytes)) {
            used.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    /** Gives back bytes {@link #tryReserve reserved}. */
    public void release(long bytes) {
        used.addAndGet(-bytes);
        if (whole != null) {
            whole.release(bytes);
        }
    }
}
