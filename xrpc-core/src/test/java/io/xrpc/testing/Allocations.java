package io.xrpc.testing;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;

/** How many bytes the current thread allocates while a piece of code runs (HotSpot's per-thread counter). */
public final class Allocations {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        // Without the counter every measure would read -1 and every allocation bound would hold.
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled()) {
            throw new IllegalStateException("this JVM does not count the bytes each thread allocates");
        }
    }

    private Allocations() {}

    /** The outcome of running some code: what it returned or threw, and what it allocated. */
    public record Measured(Object value, Throwable thrown, long bytes) {}

    public static Measured measure(Callable<?> code) {
        long id = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(id);
        Object value = null;
        Throwable thrown = null;
        try {
            value = code.call();
        } catch (Throwable t) {
            thrown = t;
        }
        long after = THREADS.getThreadAllocatedBytes(id);
        return new Measured(value, thrown, after - before);
    }
}
