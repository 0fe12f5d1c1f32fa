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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Any call may still block. A watchdog looks every {@link #TICK_NANOS} while calls wait, run
 * long or block: a thread whose call it saw running at two looks in a row is presumed blocked and
 * another is woken in its place; when most calls finished in a tick took longer than
 * {@link #LONG_CALL_NANOS} (calls that wait on a database, say), a wake-up is small beside them and
 * every call wakes a thread again, as a plain pool does; and when no waiting call was taken between
 * two looks, a thread is woken for each one that waits. Calls behind blocked ones thus wait about
 * two ticks at most, for as long as the pool has threads to give (at most {@code maxThreads}).
 * Threads are kept LIFO, so the same few stay warm; one idle for {@code keepAliveNanos} ends.
 *
 * <p>Bounded: at most {@code maxThreads} threads, and at most {@code maxThreads + queue} calls
 * accepted and not finished (waiting or running); past that {@link #execute} throws
 * {@link RejectedExecutionException}, which the server answers {@code SERVER_BUSY}. Calls are
 * taken in the order they came, whatever their connection.
 */
final class CallPool extends AbstractExecutorService {
    private static final Logger log = LoggerFactory.getLogger(CallPool.class);

    /** How often the watchdog looks at the calls while it has reason to. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A call that takes longer than this (wall time) is long: a wake-up costs it little. */
    static final long LONG_CALL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    /** Waiting calls the pool keeps in a preallocated ring; beyond this a linked queue. */
    private static final int RING_LIMIT = 1 << 16;

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
    /** Whether most calls the watchdog saw finish lately were long: then every call wakes a thread. */
    private volatile boolean longCalls;

    private final Thread watchdog;
    private final AtomicBoolean watching = new AtomicBoolean();
    /** The call at the head of the queue at the watchdog's last look; the watchdog's own. */
    private Runnable stalled;

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
        if (stopped || shutdown && threads.get() == 0) {
            abandonQueued(); // the pool ended before this call was in its queue: nobody will take it
            return;
        }
        signal();
    }

    /** Wakes a thread if too few are awake for the calls that wait, else makes sure the watchdog looks. */
    private void signal() {
        if ((longCalls || awake.get() - blocked < parallelism) && wake()) {
            return;
        }
        if (!watching.get() && watching.compareAndSet(false, true)) {
            LockSupport.unpark(watchdog);
        }
    }

    /** Wakes the thread that parked last, or starts one; false when none can be (all awake, or none starts). */
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
        /** Odd while a call runs: incremented as each call starts and as it ends. The worker's own. */
        final AtomicLong calls = new AtomicLong();
        /** Calls finished, and of those the long ones. The worker's own. */
        final AtomicLong finished = new AtomicLong();

        final AtomicLong finishedLong = new AtomicLong();
        /** What the watchdog saw at its last look ({@link #calls}, {@link #finished}, {@link #finishedLong}). */
        long seenCalls;

        long seenFinished;
        long seenLong;

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
            long start = System.nanoTime();
            try {
                call.run();
            } catch (Throwable e) {
                log.warn("A task on {} threw", Thread.currentThread().getName(), e);
            } finally {
                long took = System.nanoTime() - start;
                calls.lazySet(c + 2);
                finished.lazySet(finished.get() + 1);
                if (took > LONG_CALL_NANOS) {
                    finishedLong.lazySet(finishedLong.get() + 1);
                }
                pending.decrementAndGet();
                if (!stopped) {
                    // A call that left its thread interrupted (catching InterruptedException and
                    // restoring the flag) would make every park return at once: this thread spin.
                    Thread.interrupted();
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
            }
            // Woken, and counted awake by whoever woke it.
            if (shutdown && queue.isEmpty()) {
                awake.decrementAndGet();
                return false;
            }
            return true;
        }
    }

    /**
     * The watchdog: while calls wait, run long or block, counts the blocked ones, tells long calls
     * from short, and wakes threads for what waits.
     */
    private void watch() {
        while (!stopped && !(shutdown && threads.get() == 0)) {
            if (!watching.get()) {
                LockSupport.park(this);
                continue;
            }
            LockSupport.parkNanos(this, TICK_NANOS);
            int b = 0;
            long done = 0;
            long doneLong = 0;
            for (Worker w : workers) {
                long c = w.calls.get();
                if ((c & 1) != 0 && c == w.seenCalls) {
                    b++;
                }
                w.seenCalls = c;
                long f = w.finished.get();
                long l = w.finishedLong.get();
                done += f - w.seenFinished;
                doneLong += l - w.seenLong;
                w.seenFinished = f;
                w.seenLong = l;
            }
            blocked = b;
            if (done > 0) {
                longCalls = doneLong * 2 > done;
            }
            // When nothing was taken for a whole tick, every awake thread is blocked (or not given
            // a core): a thread for each call that waits, not one per tick, so that a burst of
            // blocking calls starts as it would on a thread per call.
            Runnable head = queue.peek();
            boolean stall = head != null && head == stalled;
            stalled = head;
            for (int n = queue.size(); n > 0 && (stall || longCalls || awake.get() - b < parallelism) && wake(); n--) {
                // one more thread for a call that waits
            }
            if (queue.isEmpty() && b == 0 && !(longCalls && awake.get() > 0)) {
                // Nothing waits, blocks or runs long: the next caller that finds too few threads
                // awake starts the looks again.
                longCalls = false;
                watching.set(false);
                if (!queue.isEmpty()) {
                    watching.compareAndSet(false, true); // a caller skipped the wake-up meanwhile
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
