package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.RpcCodec;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of one connection's routed requests may run now. A request is admitted to the executor
 * only while the usual response size of its method (the largest of its recent ones) fits under the
 * write-buffer high mark beside the output pending and the calls already running, and while the
 * connection has fewer than {@link #MAX_EXPENSIVE_READS} expensive bodies being read; otherwise it
 * waits here, in order, and reading pauses until calls end (saying alive to the client meanwhile).
 * Under an adaptive concurrency limit, a call takes a slot as it is admitted, or once the
 * authenticator admitted it when the connection has not authenticated yet.
 */
final class Admission {
    private static final Logger log = LoggerFactory.getLogger(ServerChannelHandler.class);
    /** A NonBlocking method that holds its event loop longer than this is logged (once per method). */
    static final long NON_BLOCKING_WARN_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * Expensive reads (a compressed body, or one over {@link #CHEAP_BODY} bytes) one connection may
     * have under way at once: half the cores, at least one. Inflating and deserializing are the
     * work a peer can make large at will; past its share, its later requests wait unread, and the
     * other connections keep the rest of the machine.
     */
    static final int MAX_EXPENSIVE_READS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    /** A plain body up to this size is read without counting against {@link #MAX_EXPENSIVE_READS}. */
    static final int CHEAP_BODY = 16 * 1024;
    /** How often a connection whose reading is paused for its backlog says it is alive. */
    static final long PAUSED_PONG_MILLIS = 40;

    private final ServerChannelHandler connection;
    private final NettyServerTransport server;
    private final Channel channel;
    private final EventExecutor loop;
    /** Requests read but not yet admitted, in order. Event loop only. */
    private final ArrayDeque<ServerCall> backlog = new ArrayDeque<>();

    private volatile boolean backlogged;
    private final AtomicBoolean admitScheduled = new AtomicBoolean();
    /** Calls of this connection given to the executor and not yet answered. */
    private final AtomicInteger running = new AtomicInteger();
    /** Sum of the expected response sizes of the running calls. */
    private final AtomicLong reserved = new AtomicLong();
    /** Dispatched calls of this connection whose expensive body is still being read. */
    private final AtomicInteger expensiveReads = new AtomicInteger();
    /** Pongs sent while reading is paused for this connection's backlog; null when none. Event loop. */
    private ScheduledFuture<?> pausedPongs;

    Admission(ServerChannelHandler connection, NettyServerTransport server, Channel channel, EventExecutor loop) {
        this.connection = connection;
        this.server = server;
        this.channel = channel;
        this.loop = loop;
    }

    /** A routed call of this connection (event loop): dispatched now when there is room, else queued in order. */
    void offer(ServerCall call) {
        if (!backlogged && admits(call)) {
            dispatch(call);
            return;
        }
        backlog.add(call);
        if (!backlogged) {
            backlogged = true;
            connection.pauseReading();
            sayAliveWhilePaused();
        }
        // A call may have ended between the look above and the flag: it saw no backlog and
        // scheduled nothing, so look again now that the flag is set.
        admitBacklog();
    }

    /** A request of this connection is with the authenticator, or waits for admission. */
    boolean callBeingDecided() {
        return running.get() != 0 || backlogged;
    }

    /** Whether requests wait for admission (reading stays paused while they do). */
    boolean isBacklogged() {
        return backlogged;
    }

    /** Whether the connection has room for the call's expected response beside what is pending and running. */
    private boolean admits(ServerCall call) {
        if (!channel.isWritable()) {
            return false;
        }
        if (call.expensiveRead && expensiveReads.get() >= MAX_EXPENSIVE_READS) {
            return false;
        }
        if (running.get() == 0) {
            return true;
        }
        long high = server.writeBufferHighWaterMark();
        long pending = connection.writes.queuedBytes() + (high - channel.bytesBeforeUnwritable());
        return pending + reserved.get() + call.expectedResponseBytes() <= high;
    }

    private void dispatch(ServerCall call) {
        if (server.adaptiveConcurrency() && !call.runsOnEventLoop() && call.stream == null) {
            if (!connection.isAuthenticated()) {
                call.limitOnceAuthenticated(); // refuse first, admit after: no slot or sample for a stranger
            } else {
                String busy = call.takeLimit();
                if (busy != null) {
                    call.refuse(RpcStatus.SERVER_BUSY, busy);
                    return;
                }
            }
        }
        long expected = call.expectedResponseBytes();
        if (call.expensiveRead) {
            expensiveReads.incrementAndGet();
        }
        running.incrementAndGet();
        reserved.addAndGet(expected);
        call.dispatched(expected);
        if (call.runsOnEventLoop()) {
            long start = System.nanoTime();
            call.run(); // answers, or leaves an asynchronous result to answer later
            long held = System.nanoTime() - start;
            if (held > NON_BLOCKING_WARN_AFTER_NANOS && call.stats().firstLoopHold()) {
                log.warn(
                        "{} is marked NonBlocking but held event loop {} for {} ms, during which no other connection"
                                + " of that loop was served; remove the mark if it blocks (logged once per method)",
                        call.route().descriptor(),
                        Thread.currentThread().getName(),
                        TimeUnit.NANOSECONDS.toMillis(held));
            }
            return;
        }
        try {
            server.executor().execute(call);
        } catch (RejectedExecutionException e) {
            call.refuse(RpcStatus.SERVER_BUSY, server.busy(e));
        }
    }

    /** A dispatched call's expensive body was read or dropped (any thread). */
    void expensiveReadDone() {
        expensiveReads.decrementAndGet();
        scheduleAdmit();
    }

    /** A dispatched call was answered (any thread). */
    void callDone(long expected) {
        running.decrementAndGet();
        reserved.addAndGet(-expected);
        scheduleAdmit();
    }

    /** Admits what waits, on the event loop, if anything waits. */
    private void scheduleAdmit() {
        if (backlogged && admitScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(() -> {
                    admitScheduled.set(false);
                    admitBacklog();
                });
            } catch (RejectedExecutionException closing) {
                admitScheduled.set(false); // the event loop is gone, and the backlog with it
            }
        }
    }

    /**
     * Admits what waits while there is room (while the server drains, refuses it instead);
     * reading resumes once nothing waits. Event loop.
     */
    void admitBacklog() {
        ServerCall c;
        while ((c = backlog.peek()) != null && (server.isDraining() || connection.isClosing() || admits(c))) {
            backlog.poll();
            if (connection.isClosing()) {
                c.refuse(
                        RpcStatus.UNAVAILABLE,
                        "server " + server.endpoint() + " is closing this connection;" + " request not run");
            } else if (server.isDraining()) {
                c.refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            } else {
                dispatch(c);
            }
        }
        if (backlog.isEmpty() && backlogged) {
            backlogged = false;
            if (channel.isWritable()) {
                connection.resumeReading();
            }
        }
    }

    /** Answers every request still waiting for admission UNAVAILABLE (shutdown, close); event loop. */
    void abandon() {
        ServerCall c;
        while ((c = backlog.poll()) != null) {
            c.abandon();
        }
        if (backlogged) {
            backlogged = false;
            // Reading stopped for the backlog; what the peer sent since must be read to be answered.
            if (channel.isActive() && channel.isWritable()) {
                connection.resumeReading();
            }
        }
    }

    /**
     * While reading is paused for calls of this connection, a pong every {@link #PAUSED_PONG_MILLIS}:
     * the client's pings wait unread meanwhile, and its silence watch would take this provider for
     * frozen. Event loop.
     */
    private void sayAliveWhilePaused() {
        if (pausedPongs != null) {
            return;
        }
        pausedPongs = loop.scheduleAtFixedRate(
                () -> {
                    if (!backlogged || !channel.isActive() || connection.isClosing()) {
                        ScheduledFuture<?> f = pausedPongs;
                        pausedPongs = null;
                        if (f != null) {
                            f.cancel(false);
                        }
                        return;
                    }
                    if (channel.isWritable()) {
                        connection.writes.enqueue(RpcCodec.encodeControl(channel.alloc(), MessageType.HEARTBEAT_PONG));
                    }
                },
                PAUSED_PONG_MILLIS,
                PAUSED_PONG_MILLIS,
                TimeUnit.MILLISECONDS);
    }
}
