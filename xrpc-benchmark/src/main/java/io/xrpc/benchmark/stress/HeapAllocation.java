package io.xrpc.benchmark.stress;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/**
 * Bytes this JVM has allocated on the heap, over all its threads (those that ended included),
 * from HotSpot's {@code com.sun.management.ThreadMXBean}. The stress tool reads it before and
 * after a level in the callers' JVM, and asks a forked provider for its own, to report allocation
 * per call on each side.
 */
final class HeapAllocation {
    private HeapAllocation() {}

    /** Bytes allocated since the JVM started, or -1 where the JVM does not measure it. */
    static long total() {
        if (ManagementFactory.getThreadMXBean() instanceof ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()
                && t.isThreadAllocatedMemoryEnabled()) {
            return t.getTotalThreadAllocatedBytes();
        }
        return -1;
    }
}
