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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
 * one queue, and a thread is woken only while fewer threads are awake than {@code parallelism}
 * (the cores) plus those presumed blocked; a thread that finishes a call takes the next one before
 * it parks. Under load the awake threads take one call after another and nobody is woken; with
 * one caller each call wakes one thread, as before.
 *
 * <p>Any call may still block. A watchdog looks every {@link #TICK_NANOS} while calls wait: a
 * thread it saw waiting (on a lock, a sleep, a future) in the same call at two looks in a row is
 * presumed blocked and another is woken in its place; and when calls that were waiting at one look
 * are still waiting at the next, so that the awake threads do not keep up (their calls wait on a
 * socket, say, however briefly), it wakes up to as many again as are awake, for as long as more
 * threads take more calls per tick (when the last ones added did not, the cores are the limit, and
 * more threads would only take turns on them). A call behind blocked ones waits a tick or two, and
 * a burst of blocking calls has a thread each within a few ticks, for as long as the pool has
 * threads to give (at most {@code maxThreads}). It also estimates how long a call takes (calls
 * under way over calls finished per tick, Little's law): while calls take over
 * {@link #LONG_CALL_NANOS} they wait on something else than the cores, a wake-up is small beside
 * them, and every call wakes an idle thread, as in a plain pool. While calls block or run long and none
 * waits, it looks every {@link #SLOW_TICK_NANOS}, so that what it knows stays true. Threads are
 * kept LIFO, so the same few stay warm; one idle for {@code keepAliveNanos} ends.
 *
 * <p>Bounded: at most {@code maxThreads} threads, and at most {@code maxThreads + queue} calls
 * accepted and not finished (waiting or running); past that {@link #execute} throws
 * {@link RejectedExecutionException}, which the server answers {@code SERVER_BUSY}. Calls are
 * taken in the order they came, whatever their connection.
 */
final class CallPool extends AbstractExecutorService {
    private static final Logger log = LoggerFactory.getLogger(CallPool.class);

    /** How often the watchdog looks while calls wait. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often it looks while calls block and none waits. */
    static final long SLOW_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * Calls that take longer than this (wall time, as the watchdog estimates it) wait on something
     * else than the cores: each is worth a wake-up (about 10 µs), as in a plain pool. Well above
     * what short calls come to when 256 callers keep the cores busy (about 75 µs measured).
     */
    static final long LONG_CALL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Waiting calls the pool keeps in a preallocated ring; beyond this a linked queue. */
    private static final int RING_LIMIT = 1 << 16;

    private static final int OFF = 0;
    private static final int SLOW = 1;
    private static final int FAST = 2;

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
    /** Calls accepted so far. */
    private final LongAdder accepted = new LongAdder();
    /** Calls taken by threads that have ended. */
    private final AtomicLong takenByEnded = new AtomicLong();
    /** Threads not parked: running a call or about to look for one. */
    private final AtomicInteger awake = new AtomicInteger();
    /** Threads started and not ended. */
    private final AtomicInteger threads = new AtomicInteger();
    /** Parked threads, the one that parked last first. */
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();

    private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
    /** Awake threads the watchdog saw waiting in the same call at its last two looks. */
    private volatile int blocked;
    /** Whether calls are long lately ({@link #LONG_CALL_NANOS}): then each call wakes a thread. */
    private volatile boolean longCalls;

    private final Thread watchdog;
    /** How often the watchdog looks: OFF, SLOW or FAST. */
    private final AtomicInteger watching = new AtomicInteger(OFF);

    private volatile boolean shutdown;
    /** Set by {@link #shutdownNow}: waiting calls are given back, not run. */
    private volatile boolean stopped;

    private final Object termination = new Object();

    /**
     * @param parallelism threads kept awake for calls that do not block (the cores)
     * @param abandoned given each call accepted as the pool was stopped, which will not run
     */
    CallPool(
            int maxThreads,
            int queue,
            int parallelism,
            long keepAliveNanos,
            ThreadFactory factory,
            Consumer<Runnable> abandoned) {
        this.maxThreads = maxThreads;
        this.maxPending = (int) Math.min(Integer.MAX_VALUE, (long) maxThreads + queue);
        this.parallelism = Math.max(1, Math.min(parallelism, maxThreads));
        this.keepAliveNanos = keepAliveNanos;
        this.factory = factory;
        this.abandoned = abandoned;
        // JCTools' ring takes no fewer than 2 and allocates all it may hold at once.
        this.queue = maxPending <= RING_LIMIT
                ? PlatformDependent.newFixedMpmcQueue(Math.max(2, maxPending))
                : new ConcurrentLinkedQueue<>();
        this.watchdog = new Thread(this::watch, "xrpc-server-call-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Threads started and not ended (for tests). */
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
        accepted.increment();
        if (stopped || shutdown && threads.get() == 0) {
            abandonQueued(); // the pool ended before this call was in its queue: nobody will take it
            return;
        }
        signal();
    }

    /** Wakes a thread if too few are awake for the calls that wait, else makes sure the watchdog looks. */
    private void signal() {
        // Too few awake for the cores, or calls so long (they wait on I/O) that each is worth
        // waking an idle thread for (not starting one: the watchdog adds threads while more take more).
        if ((awake.get() - blocked < parallelism ? wake() : longCalls && wakeIdle())) {
            return;
        }
        if (watching.get() != FAST && watching.getAndSet(FAST) != FAST) {
            LockSupport.unpark(watchdog);
        }
    }

    /** Wakes the thread that parked last, if one is parked. */
    private boolean wakeIdle() {
        awake.incrementAndGet();
        for (Worker w; (w = idle.pollFirst()) != null; ) {
            if (w.wake()) {
                return true;
            }
        }
        awake.decrementAndGet();
        return false;
    }

    /** Wakes the thread that parked last, or starts one; false when none can be (all awake, or none starts). */
    private boolean wake() {
        if (wakeIdle()) {
            return true;
        }
        awake.incrementAndGet();
        if (stopped) {
            awake.decrementAndGet();
            return false; // what waits was given back or abandoned, not to be run
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
        } catch (Throwable e) { // out of native threads: the watchdog tries again while calls wait
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
        /**
         * Odd while a call runs: incremented as each call starts and as it ends, so that it also
         * counts the calls this thread took. The worker's own.
         */
        final AtomicLong calls = new AtomicLong();
        /** {@link #calls} at the watchdog's last look; the watchdog's own. */
        long seenCalls;

        boolean wake() {
            if (state.compareAndSet(IDLE, RUNNING)) {
                LockSupport.unpark(thread);
                return true;
            }
            return false;
        }

        @Override
        public void run() {
            boolean countedAwake = true;
            try {
                for (; ; ) {
                    Runnable call = queue.poll();
                    if (call != null) {
                        run(call);
                    } else if (!park()) {
                        countedAwake = false;
                        return;
                    }
                }
            } finally {
                if (countedAwake) {
                    awake.decrementAndGet(); // ended by a Throwable outside a call
                }
                takenByEnded.addAndGet((calls.get() + 1) >>> 1);
                workers.remove(this);
                int left = threads.decrementAndGet();
                if (shutdown) {
                    if (left == 0) {
                        LockSupport.unpark(watchdog); // it ends with the last thread
                        synchronized (termination) {
                            termination.notifyAll();
                        }
                    }
                } else if (!queue.isEmpty()) {
                    signal(); // a call came as this thread ended, and found it still counted
                }
            }
        }

        private void run(Runnable call) {
            long c = calls.get();
            calls.lazySet(c + 1);
            try {
                call.run();
            } catch (Throwable e) {
                log.warn("A task on {} threw", Thread.currentThread().getName(), e);
            } finally {
                calls.lazySet(c + 2);
                pending.decrementAndGet();
                if (!stopped) {
                    Thread.interrupted(); // a call's interrupt does not reach the next call
                }
            }
        }

        /** Parks until woken (true), or until idle too long or the pool ends (false, no longer counted awake). */
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
                if (!stopped) {
                    // Interrupted from outside while it waited for calls: a flag left set would make
                    // every park return at once (a spinning thread). Wait on.
                    Thread.interrupted();
                }
            }
            // Woken, and counted awake by whoever woke it.
            if (shutdown && queue.isEmpty()) {
                awake.decrementAndGet();
                return false;
            }
            return true;
        }
    }

    /** The watchdog: while calls wait or block, counts the blocked threads and wakes others for what waits. */
    private void watch() {
        long lastLook = 0;
        long acceptedAtLook = 0;
        long takenAtLook = 0;
        // How long a call has taken lately (wall time), by Little's law; 0 while it does not look.
        long callNanos = 0;
        // Calls taken in the tick before the last wake-ups for late calls; -1 when none were made.
        long rateBeforeGrowth = -1;
        boolean fresh = true;
        while (!stopped && !(shutdown && threads.get() == 0)) {
            Thread.interrupted(); // an interrupt from outside would make each park return at once
            int mode = watching.get();
            if (mode == OFF) {
                LockSupport.park(this);
                fresh = true;
                continue;
            }
            long now = System.nanoTime();
            if (fresh) { // what happened before this round of looks is not a reason to wake anyone
                fresh = false;
                lastLook = now;
                rateBeforeGrowth = -1;
                takenAtLook = takenByEnded.get();
                for (Worker w : workers) {
                    long c = w.calls.get();
                    w.seenCalls = c;
                    takenAtLook += (c + 1) >>> 1;
                }
                acceptedAtLook = accepted.sum();
                continue;
            }
            long next = lastLook + (mode == FAST ? TICK_NANOS : SLOW_TICK_NANOS);
            if (now < next) {
                LockSupport.parkNanos(this, next - now);
                continue;
            }
            long interval = now - lastLook;
            lastLook = now;
            int b = 0;
            int inCall = 0;
            long taken = 0;
            for (Worker w : workers) {
                long c = w.calls.get();
                inCall += (int) (c & 1);
                // A thread that runs one call from one look to the next, waiting (a lock, a sleep, a
                // future): blocked. One that runs is only slow, or not given a core.
                if ((c & 1) != 0 && c == w.seenCalls && w.thread.getState() != Thread.State.RUNNABLE) {
                    b++;
                }
                w.seenCalls = c;
                taken += (c + 1) >>> 1;
            }
            taken += takenByEnded.get(); // after the threads: one that ended meanwhile counts twice, not never
            blocked = b;
            long rate = taken - takenAtLook;
            takenAtLook = taken;
            // How long a call takes, by Little's law (calls under way = calls a second x their
            // time), smoothed over looks: where calls are long (they wait on I/O), a caller wakes a
            // thread rather than wait for one of the awake ones to finish.
            // Only looks at which calls finished count (one with none would read as one long
            // call), each at most twice the threshold, so that one look (a GC pause) cannot make
            // calls long on its own.
            long estimate = callNanos;
            if (rate > 0) {
                long sample = Math.min(inCall * interval / rate, 2 * LONG_CALL_NANOS);
                estimate = (estimate + sample) >>> 1;
                callNanos = estimate;
            }
            // Long from above LONG_CALL_NANOS until below half of it.
            if (estimate > LONG_CALL_NANOS) {
                longCalls = true;
            } else if (estimate < LONG_CALL_NANOS / 2) {
                longCalls = false;
            }
            // Calls accepted before the last look and not taken since waited a tick or more: the
            // awake threads do not keep up (their calls wait on I/O, however briefly, or the cores
            // are all busy). Up to as many threads again as are awake, for as long as more threads
            // take more calls; when the last ones added did not, the cores are the limit, and
            // more threads would only take turns on them.
            long late = acceptedAtLook - taken;
            acceptedAtLook = accepted.sum();
            if (late <= 0) {
                rateBeforeGrowth = -1;
            } else if (rateBeforeGrowth < 0 || rate > rateBeforeGrowth + (rateBeforeGrowth >> 2)) {
                rateBeforeGrowth = rate;
                for (long n = Math.min(late, Math.max(parallelism, awake.get())); n > 0 && wake(); n--) {
                    // one more thread for a call that waited
                }
            }
            while (!queue.isEmpty() && awake.get() - b < parallelism && wake()) {
                // one more thread in place of a blocked one
            }
            if (!queue.isEmpty()) {
                watching.set(FAST);
            } else if (b > 0 || inCall > 0 && longCalls) {
                if (watching.compareAndSet(FAST, SLOW) && !queue.isEmpty()) {
                    watching.compareAndSet(SLOW, FAST); // a caller skipped the wake-up meanwhile
                }
            } else if (watching.compareAndSet(mode, OFF)) {
                // Nothing waits, blocks or runs long: the next caller that finds too few threads
                // awake starts the looks again.
                blocked = 0;
                callNanos = 0;
                longCalls = false;
                if (!queue.isEmpty()) {
                    watching.compareAndSet(OFF, FAST); // a caller skipped the wake-up meanwhile
                }
            }
        }
        synchronized (termination) {
            termination.notifyAll();
        }
    }

    private void abandonQueued() {
        for (Runnable r; (r = queue.poll()) != null; ) {
            pending.decrementAndGet();
            abandoned.accept(r);
        }
    }

    /** Refuses new calls; those accepted still run, and the threads end once nothing waits. */
    @Override
    public void shutdown() {
        shutdown = true;
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
        LockSupport.unpark(watchdog);
    }

    /** Refuses new calls, gives back those that wait and interrupts those that run. */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        stopped = true;
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
        synchronized (termination) {
            while (!isTerminated()) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // Woken as the last thread or the watchdog ends; a short wait covers their race
                // with this look.
                termination.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 10)));
            }
        }
        return true;
    }
}
