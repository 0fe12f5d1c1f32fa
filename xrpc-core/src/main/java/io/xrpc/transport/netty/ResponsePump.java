package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection's answers on their way out: a result is encoded at once when its method's usual
 * size fits in the room the connection has, else it is parked and encoded when there is room,
 * one at a time whatever thread asks, on a call thread (encoding is the executor's work, not the
 * event loop's). A peer that stops reading thus holds at most about the write-buffer high mark of
 * encoded answers, plus the results of calls that ran, unencoded.
 */
final class ResponsePump {
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final NettyServerTransport server;
    private final Channel channel;
    private final EventExecutor loop;
    private WriteQueue writes;
    /** Calls whose results wait for room to be encoded. */
    private final Queue<ServerCall> waitingForRoom = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean pumping = new AtomicBoolean();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    ResponsePump(NettyServerTransport server, Channel channel, EventExecutor loop) {
        this.server = server;
        this.channel = channel;
        this.loop = loop;
    }

    /** The connection's write queue, made once the connection is active. */
    void writes(WriteQueue writes) {
        this.writes = writes;
    }

    /** Whether a result of about {@code bytes} may be encoded now. */
    private boolean hasRoomFor(long bytes) {
        return channel.isWritable() && writes.queuedBytes() + bytes < channel.bytesBeforeUnwritable();
    }

    /**
     * A call's result is ready (any thread): encode and send it now if its usual size fits,
     * else park it until there is room.
     */
    void deliver(ServerCall call) {
        if (!channel.isActive()) {
            call.dropResult(); // nobody to send it to: do not encode it
            return;
        }
        if (waitingForRoom.isEmpty() && hasRoomFor(call.expectedResponseBytes())) {
            call.encodeAndAnswer();
            return;
        }
        waitingForRoom.add(call);
        pump();
    }

    /** Encodes parked results while there is room, one at a time whatever thread calls; drops them once closed. */
    void pump() {
        while (!waitingForRoom.isEmpty() && pumping.compareAndSet(false, true)) {
            try {
                ServerCall c;
                if (!channel.isActive()) {
                    while ((c = waitingForRoom.poll()) != null) {
                        c.dropResult();
                    }
                    return;
                }
                while (hasRoomFor(0) && (c = waitingForRoom.poll()) != null) {
                    c.encodeAndAnswer();
                }
                if (!hasRoomFor(0)) {
                    return; // afterWrite or the writable edge starts the next round
                }
            } finally {
                pumping.set(false);
            }
        }
    }

    /** The write queue handed bytes to the socket (event loop): parked results may fit now. */
    void afterWrite() {
        if (!waitingForRoom.isEmpty() && hasRoomFor(0)) {
            schedule();
        }
    }

    /** The connection is writable again (event loop). */
    void writable() {
        if (!waitingForRoom.isEmpty()) {
            schedule();
        }
    }

    /** Runs a pump on the executor; retries while it is full. */
    private void schedule() {
        if (!scheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            server.executor().execute(() -> {
                scheduled.set(false);
                pump();
            });
        } catch (RejectedExecutionException full) {
            scheduled.set(false);
            if (channel.isActive()) {
                try {
                    loop.schedule(this::schedule, RETRY_NANOS, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    // the event loop is gone with the connection
                }
            }
        }
    }
}
