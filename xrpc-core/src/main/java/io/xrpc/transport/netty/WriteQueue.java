package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets many threads write to one channel with one flush per batch. Writers add frames to a
 * lock-free queue; the first writer of a batch schedules one drain task on the event loop, which
 * writes everything queued and flushes once. Under load many calls share a syscall.
 *
 * <p>It hands frames to the channel only while the channel is writable (its outbound bytes under
 * the high-water mark): a peer that stops reading then holds back this side's writes here, where
 * they are counted ({@link #queuedBytes()}), instead of in a socket buffer without limit. The
 * owner calls {@link #resume()} when the channel becomes writable again or closes.
 * {@link #closeAfterFlush()} closes the channel after everything queued before it, however much.
 *
 * <p>Streams' messages and ends go in a lane of their own ({@link #enqueueStream}), written only
 * when the other lane (answers, requests, credits, control) is empty and the channel holds less
 * than {@link #STREAM_IN_CHANNEL} bytes not yet taken by the socket: a call's answer waits behind
 * at most that much of a stream, plus one message, however many streams are sending. A stream's
 * sender asks before it produces more ({@link #hasStreamRoom}) and is called back when there is
 * room ({@link #whenStreamRoom}), so the lane holds about {@link #STREAM_ROOM} bytes whatever
 * credit a peer grants.
 */
final class WriteQueue implements Runnable {
    /** Frames written per task before yielding the event loop to reads and other channels. */
    private static final int BATCH = 256;

    private static final Object CLOSE = new Object();

    /** Bytes of stream messages in the channel's buffer above which the stream lane waits. */
    static final int STREAM_IN_CHANNEL = 64 * 1024;

    /** Bytes queued in the stream lane above which streams' senders are asked to wait. */
    static final int STREAM_ROOM = 256 * 1024;

    private final Queue<ByteBuf> streamQueue = PlatformDependent.newMpscQueue();
    private final AtomicLong streamBytes = new AtomicLong();
    /** Streams' senders waiting for room in the stream lane. */
    private final Queue<Runnable> roomWaiters = PlatformDependent.newMpscQueue();
    /** Set while a write of the stream lane is in the channel and its completion will run this queue. */
    private boolean streamWriteWatched; // event loop only

    private final ChannelFutureListener streamWritten = f -> {
        streamWriteWatched = false;
        resume();
    };

    private final Channel channel;
    // Failed writes of untracked frames need no exceptionCaught event (and its log line) each:
    // a broken connection is reported once, by its close.
    private final ChannelPromise quietVoid;
    private final Queue<Object> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Runnable afterWrite;
    private volatile boolean dead;
    private volatile boolean closing;

    /** A frame whose write outcome someone waits for. */
    interface Tracked extends ChannelFutureListener {
        /** Hands over the frame; called once, on the event loop. */
        ByteBuf takeFrame();
    }

    WriteQueue(Channel channel) {
        this(channel, null);
    }

    /** @param afterWrite run on the event loop after queued bytes went to the channel, or null */
    WriteQueue(Channel channel, Runnable afterWrite) {
        this.channel = channel;
        this.quietVoid = new VoidChannelPromise(channel, false);
        this.afterWrite = afterWrite;
    }

    /** Queues a frame; the queue owns it from now on. */
    void enqueue(ByteBuf frame) {
        queuedBytes.addAndGet(frame.readableBytes());
        queue.add(frame);
        schedule();
    }

    /** Queues a frame of a stream (a message or its end), after its stream's earlier frames. */
    void enqueueStream(ByteBuf frame) {
        streamBytes.addAndGet(frame.readableBytes());
        streamQueue.add(frame);
        schedule();
    }

    /** Whether a stream's sender may queue more now (any thread). */
    boolean hasStreamRoom() {
        return !dead && streamBytes.get() < STREAM_ROOM && channel.isWritable();
    }

    /** Runs {@code sender} on the event loop once the stream lane has room (at once if it has). */
    void whenStreamRoom(Runnable sender) {
        roomWaiters.add(sender);
        schedule();
    }

    /** Bytes queued in the stream lane and not yet given to the channel. */
    long streamQueuedBytes() {
        return streamBytes.get();
    }

    /** Queues a frame whose write result is reported to {@code write}. */
    void enqueue(Tracked write) {
        queue.add(write);
        schedule();
    }

    /** Closes the channel once everything queued so far is written. */
    void closeAfterFlush() {
        closing = true;
        queue.add(CLOSE);
        schedule();
    }

    /** Bytes of untracked frames (responses, control frames) queued and not yet given to the channel. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** The channel became writable or inactive: carry on writing (or failing) what waits. */
    void resume() {
        if (!queue.isEmpty() || !streamQueue.isEmpty() || !roomWaiters.isEmpty()) {
            schedule();
        }
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
        long bytes = 0;
        boolean more = false;
        boolean waitForWritability = false;
        while ((o = queue.peek()) != null) {
            boolean flushAll = closing;
            if (o == CLOSE) {
                queue.poll();
                ByteBuf f;
                while ((f = streamQueue.poll()) != null) { // streams' last frames (their ends) go too
                    streamBytes.addAndGet(-f.readableBytes());
                    channel.write(f, quietVoid);
                }
                // Closes once everything written before it has reached the socket: a plain close
                // would discard what the socket has not taken yet.
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                continue;
            }
            if (!flushAll && channel.isActive() && !channel.isWritable()) {
                waitForWritability = true; // resume() is called from channelWritabilityChanged
                break;
            }
            if (!flushAll && n == BATCH) {
                more = true;
                break;
            }
            queue.poll();
            n++;
            if (o instanceof ByteBuf b) {
                bytes += b.readableBytes();
                channel.write(b, quietVoid);
            } else {
                Tracked t = (Tracked) o;
                channel.write(t.takeFrame()).addListener(t);
            }
        }
        if (!more && !waitForWritability && o == null) {
            int before = n;
            n = writeStreams(n);
            more = n == BATCH && n != before && !streamQueue.isEmpty();
            waitForWritability = channel.isActive() && !channel.isWritable();
        }
        if (n != 0) {
            channel.flush();
        }
        if (bytes != 0) {
            queuedBytes.addAndGet(-bytes);
            if (afterWrite != null) {
                afterWrite.run();
            }
        }
        wakeStreamSenders();
        if (more) {
            // A batch was not enough: go again after the loop's other work.
            reschedule();
            return;
        }
        scheduled.set(false);
        // Go again if a writer added after our last look and saw the flag still set, or if the
        // channel became writable during our own flush (Netty reports that at once, while the
        // flag was still set, so that resume() did nothing).
        if ((!queue.isEmpty() || (!streamQueue.isEmpty() && !streamWriteWatched) || hasWaitersWithRoom())
                && (!waitForWritability || channel.isWritable() || !channel.isActive())
                && scheduled.compareAndSet(false, true)) {
            reschedule();
        }
    }

    /**
     * Writes the stream lane while the other lane is empty and the channel holds little of it;
     * returns the frames written this round, {@code n} included. When the channel holds too much
     * to go on, an empty write after what it holds runs this queue again once that is written.
     */
    private int writeStreams(int n) {
        ByteBuf f;
        long inChannel = channel.isActive()
                ? channel.config().getWriteBufferHighWaterMark() - channel.bytesBeforeUnwritable()
                : 0;
        long written = 0;
        boolean full = false;
        while (n < BATCH && queue.isEmpty() && (f = streamQueue.peek()) != null) {
            if (channel.isActive() && !channel.isWritable()) {
                break; // resume() is called from channelWritabilityChanged
            }
            int size = f.readableBytes();
            if (inChannel + written > 0 && inChannel + written + size > STREAM_IN_CHANNEL) {
                full = true;
                break;
            }
            streamQueue.poll();
            written += size;
            n++;
            channel.write(f, quietVoid);
        }
        if (written != 0) {
            streamBytes.addAndGet(-written);
        }
        if (full && !streamWriteWatched) {
            streamWriteWatched = true;
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(streamWritten);
        }
        return n;
    }

    private boolean hasWaitersWithRoom() {
        return !roomWaiters.isEmpty() && hasStreamRoom();
    }

    /** Runs the senders that waited for room in the stream lane, while there is room (event loop). */
    private void wakeStreamSenders() {
        if (!channel.isActive()) {
            roomWaiters.clear(); // their calls end with the connection (channelInactive)
            return;
        }
        // Those woken now, not those a sender adds again as it runs: no sender spins the loop.
        Runnable r;
        for (int n = roomWaiters.size(); n > 0 && hasStreamRoom() && (r = roomWaiters.poll()) != null; n--) {
            r.run();
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
            } else if (o instanceof ByteBuf b) {
                queuedBytes.addAndGet(-b.readableBytes());
                b.release();
            }
        }
        ByteBuf f;
        while ((f = streamQueue.poll()) != null) {
            streamBytes.addAndGet(-f.readableBytes());
            f.release();
        }
        roomWaiters.clear();
    }
}
