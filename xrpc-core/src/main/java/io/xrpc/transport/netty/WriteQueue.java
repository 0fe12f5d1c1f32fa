package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lets many threads write to one channel with one flush per batch. Writers add frames to a
 * lock-free queue; the first writer of a batch schedules one drain task on the event loop, which
 * writes everything queued and flushes once. Under load many calls share a syscall.
 */
final class WriteQueue implements Runnable {
    /** Frames written per task before yielding the event loop to reads and other channels. */
    private static final int BATCH = 256;

    private final Channel channel;
    // Failed writes of untracked frames need no exceptionCaught event (and its log line) each:
    // a broken connection is reported once, by its close.
    private final ChannelPromise quietVoid;
    private final Queue<Object> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean dead;

    /** A frame whose write outcome someone waits for. */
    interface Tracked extends ChannelFutureListener {
        /** Hands over the frame; called once, on the event loop. */
        ByteBuf takeFrame();
    }

    WriteQueue(Channel channel) {
        this.channel = channel;
        this.quietVoid = new VoidChannelPromise(channel, false);
    }

    /** Queues a frame; the queue owns it from now on. */
    void enqueue(ByteBuf frame) {
        queue.add(frame);
        schedule();
    }

    /** Queues a frame whose write result is reported to {@code write}. */
    void enqueue(Tracked write) {
        queue.add(write);
        schedule();
    }

    private void schedule() {
        if (dead) {
            drainAndFail();
            return;
        }
        if (scheduled.compareAndSet(false, true)) {
            try {
                channel.eventLoop().execute(this);
            } catch (RejectedExecutionException e) {
                // The event loop is gone: nothing will ever be written. From now on every writer
                // fails its own frames; the scheduled flag stays set so no drain task races this.
                dead = true;
                drainAndFail();
            }
        }
    }

    @Override
    public void run() {
        Object o;
        int n = 0;
        while (n < BATCH && (o = queue.poll()) != null) {
            n++;
            if (o instanceof ByteBuf b) {
                channel.write(b, quietVoid);
            } else {
                Tracked t = (Tracked) o;
                channel.write(t.takeFrame()).addListener(t);
            }
        }
        channel.flush();
        if (!queue.isEmpty()) {
            // A batch was not enough: go again after the loop's other work.
            reschedule();
            return;
        }
        scheduled.set(false);
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            reschedule(); // a writer added after our last poll and saw the flag still set
        }
    }

    private void reschedule() {
        try {
            channel.eventLoop().execute(this);
        } catch (RejectedExecutionException e) {
            dead = true;
            drainAndFail();
        }
    }

    /** Fails what is queued; synchronized because the MPSC queue allows one consumer at a time. */
    private synchronized void drainAndFail() {
        Object o;
        while ((o = queue.poll()) != null) {
            if (o instanceof Tracked t) {
                ByteBuf frame = t.takeFrame();
                ReferenceCountUtil.release(frame);
                try {
                    t.operationComplete(channel.newFailedFuture(new IllegalStateException("event loop shut down")));
                } catch (Exception ignored) {
                    // a listener that throws has already failed its call
                }
            } else {
                ReferenceCountUtil.release(o);
            }
        }
    }
}
