package io.xrpc.cluster;

import io.xrpc.config.Hedging;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The recent latency of one method's answered attempts, for a percentile hedging delay: the last
 * {@link #SIZE} samples in a ring, and the percentile recomputed every {@link #EVERY} samples (a
 * sort of 2 KiB), so a call reads one volatile field. Fixed size; no lock.
 */
final class LatencyWindow {
    static final int SIZE = 256;
    static final int EVERY = 32;

    private final double percentile;
    private final AtomicLongArray samples = new AtomicLongArray(SIZE);
    private final AtomicLong count = new AtomicLong();
    private volatile long nanos = -1;

    LatencyWindow(double percentile) {
        this.percentile = percentile;
    }

    void record(long sampleNanos) {
        long n = count.getAndIncrement() + 1;
        samples.lazySet((int) ((n - 1) & (SIZE - 1)), sampleNanos);
        if (n % EVERY == 0 && n >= Hedging.MIN_SAMPLES) {
            int size = (int) Math.min(n, SIZE);
            long[] copy = new long[size];
            for (int i = 0; i < size; i++) {
                copy[i] = samples.get(i);
            }
            Arrays.sort(copy);
            nanos = copy[Math.min(size - 1, (int) Math.ceil(percentile / 100 * size) - 1)];
        }
    }

    /** The percentile now, or -1 before {@link Hedging#MIN_SAMPLES} samples. */
    long nanos() {
        return nanos;
    }
}
