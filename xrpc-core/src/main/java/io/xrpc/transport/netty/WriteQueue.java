package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
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
    private final Channel channel;
    private final Queue<Object> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    /** A frame whose write outcome someone waits for. */
    interface Tracked extends ChannelFutureListener {
        /** Hands over the frame; called once, on the event loop. */
        ByteBuf takeFrame();
    }

    WriteQueue(Channel channel) {
        this.channel = channel;
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
        if (scheduled.compareAndSet(false, true)) {
            try {
                channel.eventLoop().execute(this);
            } catch (RejectedExecutionException e) {
                // The event loop is gone: nothing will ever be written.
                scheduled.set(false);
                drainAndFail();
            }
        }
    }

    @Override
    public void run() {
        for (;;) {
            Object o;
            while ((o = queue.poll()) != null) {
                if (o instanceof ByteBuf b) {
                    channel.write(b, channel.voidPromise());
                } else {
                    Tracked t = (Tracked) o;
                    channel.write(t.takeFrame()).addListener(t);
                }
            }
            channel.flush();
            scheduled.set(false);
            if (queue.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private void drainAndFail() {
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
