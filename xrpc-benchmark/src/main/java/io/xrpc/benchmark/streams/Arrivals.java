package io.xrpc.benchmark.streams;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * What one stream delivered, recorded by the one thread that receives it: how many messages, when
 * the first came, how long each took from its {@code sentNanos} (the same monotonic clock in every
 * process of a Linux machine), and how the stream ended.
 */
public final class Arrivals {
    private final long startNanos = System.nanoTime();
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile long count;
    private volatile long firstNanos;
    private volatile long endNanos;

    /** A message sent at {@code sentNanos} arrived. */
    public void arrived(long sentNanos) {
        long now = System.nanoTime();
        if (count == 0) {
            firstNanos = now;
        }
        count++; // one receiving thread
        latency.recordValue(Math.max(0, Math.min(now - sentNanos, latency.getHighestTrackableValue())));
    }

    /** The stream ended, failed when {@code t} is not null. */
    public void ended(Throwable t) {
        endNanos = System.nanoTime();
        failure.set(t);
        done.countDown();
    }

    /** Waits for the end; throws the stream's failure. */
    void await(long seconds) throws Exception {
        if (!done.await(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the stream did not end within " + seconds + " s (" + count + " messages)");
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the stream failed after " + count + " messages: " + t, t);
        }
    }

    long count() {
        return count;
    }

    double seconds() {
        return (endNanos - startNanos) / 1e9;
    }

    double firstMicros() {
        return (firstNanos - startNanos) / 1e3;
    }

    double latencyMicros(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1e3;
    }
}
