package io.xrpc.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

/**
 * Threads that each run a step again and again until closed: the callers of the load and chaos
 * tests. Closing stops them and waits (bounded) for every loop to end.
 */
public final class Loops implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final ExecutorService pool;
    private final List<Future<?>> loops = new ArrayList<>();

    /** {@code threads} threads; thread {@code i} runs {@code step.apply(i)} in a loop (a step may keep state of its own). */
    public Loops(int threads, IntFunction<Runnable> step) {
        pool = Executors.newFixedThreadPool(threads);
        for (int i = 0; i < threads; i++) {
            Runnable s = step.apply(i);
            loops.add(pool.submit(() -> {
                while (!stop.get()) {
                    s.run();
                }
                return null;
            }));
        }
    }

    /** Whether {@link #close} was called. */
    public boolean stopped() {
        return stop.get();
    }

    @Override
    public void close() throws Exception {
        stop.set(true);
        for (Future<?> f : loops) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
    }
}
