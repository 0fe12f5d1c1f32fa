package io.xrpc.transport.netty;

import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's call threads: a bounded pool that hands a call to a thread without waking one when
 * a thread already awake will take it.
 *
 * <p>A pool that wakes a parked thread for every call (a {@code ThreadPoolExecutor}, as Dubbo's and
 * gRPC's executors are) pays a futex wake-up and two context switches per call: on this project's
 * machine about 10 µs of the provider's CPU, more than the rest of a small call. Here a call goes to
 * one queue, and a thread is woken only while fewer threads are awake than {@link #parallelism} (the
 * cores) plus those presumed blocked; a thread that finishes a call takes the next one before it
 * parks. Under load the awake threads take one call after another and nobody is woken; with one
 * caller each call wakes one thread, as before.
 *
 * <p>Any call may still block. A watchdog looks at the running calls every {@link #TICK_NANOS}
 * while calls wait: a thread whose call it saw running at two looks in a row is
 * presumed blocked and another is woken in its place, and when no waiting call was taken between
 * two looks, a thread is woken for each one that waits. Calls behind blocked ones thus wait about
 * two ticks at most, for as long as the pool has threads to give (at most {@code maxThreads}). Threads are kept LIFO, so the same few stay warm; one idle for
 * {@code keepAliveNanos} ends.
 *
 * <p>Bounded: at most {@code maxThreads} threads, and at most {@code maxThreads + queue} calls
 * accepted and not finished (waiting or running); past that {@link #execute} throws
 * {@link RejectedExecutionException}, which the server answers {@code SERVER_BUSY}. Calls are
 * taken in the order they came, whatever their connection.
 */
final class CallPool extends AbstractExecutorService {
    private static final Logger log = LoggerFactory.getLogger(CallPool.class);

    /** How often the watchdog looks for blocked calls while it has reason to. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int RUNNING = 0;
    private static final int IDLE = 1;
    private static final int RETIRED = 2;

    private final int maxThreads;
    private final int maxPending;
    private final int parallelism;
    private final long keepAliveNanos;
    private final ThreadFactory factory;
    private final Consumer<Runnable> abandoned;
    private final Queue<Runnable> queue;
    /** Calls accepted and not finished: waiting in {@link #queue} or running. */
    private final AtomicInteger pending = new AtomicInteger();
    /** Threads not parked: running a call or about to look for one. */
    private final AtomicInteger awake = new AtomicInteger();
    /** Threads started and not ended. */
    private final AtomicInteger threads = new AtomicInteger();
    /** Parked threads, the one that parked last first. */
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();

    private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
    /** Awake threads whose call the watchdog saw running at its last two looks. */
    private volatile int blocked;

    private final Thread watchdog;
    /** The call at the head of the queue at the watchdog's last look; the watchdog's own. */
    private Runnable stalled;

    private final AtomicBoolean watching = new AtomicBoolean();
    private volatile boolean shutdown;

    /**
     * @param parallelism threads kept awake for calls that do not block (the cores)
     * @param abandoned given each call that was accepted as the pool shut down and will not run
     */
    CallPool(
            int maxThreads,
            int queue,
            int parallelism,
            long keepAliveNanos,
            ThreadFactory factory,
            Consumer<Runnable> abandoned) {
        this.maxThreads = maxThreads;
        this.maxPending = maxThreads + queue;
        this.parallelism = Math.max(1, Math.min(parallelism, maxThreads));
        this.keepAliveNanos = keepAliveNanos;
        this.factory = factory;
        this.abandoned = abandoned;
        this.queue = PlatformDependent.newFixedMpmcQueue(Math.max(2, maxPending)); // JCTools takes no fewer than 2
        this.watchdog = new Thread(this::watch, "xrpc-server-call-watchdog");
        watchdog.setDaemon(true);
    }

    int maxThreads() {
        return maxThreads;
    }

    /** Threads started and not ended (for tests and the metrics). */
    int threads() {
        return threads.get();
    }

    @Override
    public void execute(Runnable call) {
        Objects.requireNonNull(call, "call");
        if (shutdown) {
            throw new RejectedExecutionException("call pool shut down");
        }
        if (pending.incrementAndGet() > maxPending || !queue.offer(call)) {
            pending.decrementAndGet();
            throw new RejectedExecutionException("all " + maxPending + " places taken");
        }
        if (shutdown) {
            abandonQueued(); // shutdownNow may have drained the queue before this call was in it
            return;
        }
        signal();
    }

    /** Wakes a thread if too few are awake for the calls that wait, else makes sure the watchdog looks. */
    private void signal() {
        if (awake.get() - blocked < parallelism) {
            wake();
        } else if (!watching.get() && watching.compareAndSet(false, true)) {
            if (watchdog.getState() == Thread.State.NEW) {
                synchronized (watchdog) {
                    if (watchdog.getState() == Thread.State.NEW) {
                        watchdog.start();
                    }
                }
            }
            LockSupport.unpark(watchdog);
        }
    }

    /** Wakes the thread that parked last, or starts one; false when every thread is awake already. */
    private boolean wake() {
        awake.incrementAndGet();
        for (Worker w; (w = idle.pollFirst()) != null; ) {
            if (w.wake()) {
                return true;
            }
        }
        if (threads.incrementAndGet() > maxThreads) {
            threads.decrementAndGet();
            awake.decrementAndGet();
            return false; // each thread exists and is awake: one that finishes takes what waits
        }
        Worker w = new Worker();
        try {
            Thread t = factory.newThread(w);
            w.thread = t;
            workers.add(w);
            t.start();
            if (shutdown) {
                t.interrupt();
            }
        } catch (Throwable e) { // out of native threads: the calls wait for the threads there are
            workers.remove(w);
            threads.decrementAndGet();
            awake.decrementAndGet();
            log.warn("Cannot start a call thread ({} running): {}", threads.get(), e.toString());
            return false;
        }
        return true;
    }

    private final class Worker implements Runnable {
        final AtomicInteger state = new AtomicInteger(RUNNING);
        volatile Thread thread;
        /** Odd while a call runs: incremented as each call starts and as it ends. */
        volatile long calls;
        /** {@link #calls} at the watchdog's last look; the watchdog's own. */
        long seen;

        boolean wake() {
            if (state.compareAndSet(IDLE, RUNNING)) {
                LockSupport.unpark(thread);
                return true;
            }
            return false;
        }

        @Override
        public void run() {
            try {
                for (; ; ) {
                    Runnable call = queue.poll();
                    if (call != null) {
                        run(call);
                    } else if (!park()) {
                        return;
                    }
                }
            } finally {
                workers.remove(this);
                threads.decrementAndGet();
            }
        }

        private void run(Runnable call) {
            if (!shutdown) {
                Thread.interrupted(); // a call that left its thread interrupted does not reach the next one
            }
            calls = calls + 1;
            try {
                call.run();
            } catch (Throwable e) {
                log.warn("A task on {} threw", Thread.currentThread().getName(), e);
            } finally {
                calls = calls + 1;
                pending.decrementAndGet();
            }
        }

        /** Parks until woken (true) or until idle too long or shut down (false). */
        private boolean park() {
            awake.decrementAndGet();
            // A caller that saw this thread awake woke nobody: look at the queue once more.
            if (!queue.isEmpty()) {
                awake.incrementAndGet();
                return true;
            }
            if (shutdown) {
                return false;
            }
            state.set(IDLE);
            idle.offerFirst(this);
            // A caller may have looked for an idle thread just before this one was listed.
            if (!queue.isEmpty() && state.compareAndSet(IDLE, RUNNING)) {
                idle.remove(this);
                awake.incrementAndGet();
                return true;
            }
            long until = System.nanoTime() + keepAliveNanos;
            while (state.get() == IDLE) {
                long left = until - System.nanoTime();
                if ((left <= 0 || shutdown) && state.compareAndSet(IDLE, RETIRED)) {
                    idle.remove(this);
                    return false;
                }
                LockSupport.parkNanos(this, left);
            }
            return !shutdown || !queue.isEmpty(); // woken; whoever woke it counted it awake
        }
    }

    /** The watchdog: while calls wait, counts the blocked ones and wakes threads in their place. */
    private void watch() {
        while (!shutdown) {
            if (!watching.get()) {
                LockSupport.park(this);
                continue;
            }
            LockSupport.parkNanos(this, TICK_NANOS);
            int b = 0;
            for (Worker w : workers) {
                long c = w.calls;
                if ((c & 1) != 0 && c == w.seen) {
                    b++;
                }
                w.seen = c;
            }
            blocked = b;
            Runnable head = queue.peek();
            if (head != null && head == stalled) {
                // Nothing was taken for a whole tick: every awake thread is blocked (or not given a
                // core). A thread for each call that waits, not one per tick, so that a burst of
                // blocking calls starts as it would on a thread per call.
                for (int n = queue.size(); n > 0 && wake(); n--) {
                    // one more thread for what waits
                }
            }
            stalled = head;
            while (!queue.isEmpty() && awake.get() - b < parallelism && wake()) {
                // one more thread for what waits
            }
            if (queue.isEmpty()) {
                // Calls that run long with nothing behind them need no looking at; the next caller
                // that finds too few threads awake starts the looks again.
                blocked = 0;
                watching.set(false);
                // A caller that found it still watching skipped the wake-up: look again.
                if (!queue.isEmpty()) {
                    watching.compareAndSet(false, true);
                }
            }
        }
    }

    private void abandonQueued() {
        for (Runnable r; (r = queue.poll()) != null; ) {
            pending.decrementAndGet();
            abandoned.accept(r);
        }
    }

    @Override
    public void shutdown() {
        shutdown = true;
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
        LockSupport.unpark(watchdog);
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> dropped = new ArrayList<>();
        for (Runnable r; (r = queue.poll()) != null; ) {
            pending.decrementAndGet();
            dropped.add(r);
        }
        for (Worker w : workers) {
            Thread t = w.thread;
            if (t != null) {
                t.interrupt();
                LockSupport.unpark(t);
            }
        }
        LockSupport.unpark(watchdog);
        return dropped;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && threads.get() == 0 && !watchdog.isAlive();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long until = System.nanoTime() + unit.toNanos(timeout);
        for (Worker w : workers) {
            Thread t = w.thread;
            long left = until - System.nanoTime();
            if (t != null && left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
        }
        long left = until - System.nanoTime();
        if (watchdog.getState() != Thread.State.NEW && left > 0) {
            TimeUnit.NANOSECONDS.timedJoin(watchdog, left);
        }
        return isTerminated();
    }
}
