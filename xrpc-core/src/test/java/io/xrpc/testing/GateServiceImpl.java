package io.xrpc.testing;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class GateServiceImpl implements GateService {
    public final CountDownLatch gate = new CountDownLatch(1);
    /** One permit per call that has entered {@link #pass}. */
    public final Semaphore entered = new Semaphore(0);

    public final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final String name;
    /** How many times longer {@link #work} takes here than asked: a slow provider. */
    public volatile int slowdown = 1;
    /**
     * A provider that fails fast: {@link #work} and {@link #put} throw an exception they do not
     * declare at once, and {@link #checked} throws its declared one.
     */
    public volatile boolean failFast;
    /** What {@link #pooled} holds: four connections, taken in turn. */
    private final Semaphore pool = new Semaphore(4, true);

    public GateServiceImpl() {
        this("provider");
    }

    public GateServiceImpl(String name) {
        this.name = name;
    }

    @Override
    public String passIdempotent(String tag) {
        return pass(tag) + "@" + name;
    }

    @Override
    public String put(int millis) {
        runs.computeIfAbsent("put", t -> new AtomicInteger()).incrementAndGet();
        return work(millis);
    }

    @Override
    public String checked(int millis) throws Refused {
        if (failFast) {
            throw new Refused("refused by " + name);
        }
        return work(millis);
    }

    @Override
    public String work(int millis) {
        runs.computeIfAbsent("work", t -> new AtomicInteger()).incrementAndGet();
        if (failFast) {
            throw new IllegalStateException(name + " cannot serve: its database is down");
        }
        try {
            Thread.sleep((long) millis * slowdown);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return name;
    }

    @Override
    public CompletableFuture<String> pooled(int millis) {
        try {
            pool.acquire();
            try {
                Thread.sleep(millis);
            } finally {
                pool.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return CompletableFuture.completedFuture(name);
    }

    @Override
    public String whoAmI() {
        runs.computeIfAbsent("whoAmI", t -> new AtomicInteger()).incrementAndGet();
        return name;
    }

    @Override
    public String pass(String tag) {
        runs.computeIfAbsent(tag, t -> new AtomicInteger()).incrementAndGet();
        entered.release();
        try {
            gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return tag;
    }

    @Override
    public CompletableFuture<String> passAsync(String tag) {
        return CompletableFuture.completedFuture(pass(tag));
    }

    @Override
    public String quick(String s) {
        return s;
    }

    @Override
    public String describe(Object value) {
        return String.valueOf(value);
    }

    @Override
    public int runs(String tag) {
        return runsOf(tag);
    }

    public int runsOf(String tag) {
        AtomicInteger n = runs.get(tag);
        return n == null ? 0 : n.get();
    }
}
