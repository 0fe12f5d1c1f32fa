package io.xrpc.transport.netty;

import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.codec.Frame;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiving side of one stream: the peer's messages as a {@link Flow.Publisher} to one local
 * subscriber, under credit. The peer may send only what this side granted: the stream's initial
 * window, then as many messages and bytes as the subscriber has taken, granted back once half a
 * window was taken. So the messages held here never exceed one window (plus one message's bytes),
 * whatever the subscriber requests, and a subscriber that requests nothing stops the peer once
 * the window is full. Messages are decoded and delivered on {@code delivery}, one at a time, in
 * order; a peer that sends beyond its credit ends the stream.
 *
 * <p>Frames arrive on the connection's event loop ({@link #onMessage}, {@link #onEnd}); the
 * subscriber calls {@link #request} and {@link #cancel} from any thread.
 */
final class InboundStream implements Flow.Publisher<Object>, Flow.Subscription {
    /** What the stream asks of its connection. */
    interface Peer {
        /** Tells the peer it may send this many more messages and bytes (a CREDIT frame). */
        void grant(int messages, int bytes);

        /**
         * The local subscriber cancelled: it wants no more of the peer's messages. Nothing more is
         * granted and what arrives within the credit already granted is dropped; whether the call
         * ends too is the peer's decision (a caller's cancel ends it, a provider's does not).
         */
        void cancelled();

        /** The stream cannot go on (a message could not be read, the subscriber broke a rule): end the call. */
        void failed(RpcException why);

        /** Reads one message of the peer's; the frame is released by the caller. */
        Object decode(Frame message) throws Exception;
    }

    private final Peer peer;
    private final Executor delivery;
    private final String description;
    private final int windowMessages;
    private final int windowBytes;
    private final AtomicLong creditMessages;
    private final AtomicLong creditBytes;
    private final Queue<Frame> buffered = new ConcurrentLinkedQueue<>();
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile Flow.Subscriber<? super Object> subscriber;
    /** Set once the peer's stream ended: {@link #COMPLETED}, or the failure. */
    private volatile Object end;

    private volatile boolean done;
    private long received; // event loop only
    private boolean peerEnded; // event loop only
    /**
     * Messages read once the peer's stream ended, waiting for the subscriber: the connection's
     * buffers are not held for a subscriber that may never come back for them.
     */
    private final Queue<Object> settled = new ConcurrentLinkedQueue<>();

    private int takenMessages; // drain only
    private long takenBytes; // drain only
    private long delivered; // drain only

    private static final Object COMPLETED = new Object();

    /**
     * @param initialMessages what the peer may send before this side grants anything
     * @param windowMessages  the most messages held here at once, and what is granted as they are taken
     */
    InboundStream(
            Peer peer,
            Executor delivery,
            String description,
            int initialMessages,
            int initialBytes,
            int windowMessages,
            int windowBytes) {
        this.peer = peer;
        this.delivery = delivery;
        this.description = description;
        this.windowMessages = windowMessages;
        this.windowBytes = windowBytes;
        this.creditMessages = new AtomicLong(initialMessages);
        this.creditBytes = new AtomicLong(initialBytes);
    }

    /** Messages the peer sent within its credit so far (event loop). */
    long received() {
        return received;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Object> s) {
        Objects.requireNonNull(s, "subscriber");
        synchronized (this) {
            if (subscriber != null) {
                s.onSubscribe(NOOP);
                s.onError(new IllegalStateException(description + ": a stream of messages has one subscriber"));
                return;
            }
            subscriber = s;
        }
        s.onSubscribe(this);
        drain();
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            IllegalArgumentException e =
                    new IllegalArgumentException("request(" + n + ") (expected: > 0, rule 3.9 of Reactive Streams)");
            if (!done) {
                peer.failed(new RpcException(RpcStatus.CANCELLED, description + ": " + e.getMessage()));
            }
            fail(e);
            return;
        }
        demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        drain();
    }

    @Override
    public void cancel() {
        if (!done) {
            done = true;
            end = new Delivered(); // a subscriber that cancelled is told nothing more
            peer.cancelled();
            drain(); // releases what is held
        }
    }

    /**
     * A message arrived (event loop): held until the subscriber takes it. Returns false, holding
     * nothing, when the peer had no credit for it or had ended its stream.
     */
    boolean onMessage(Frame frame) {
        int size = frame.body().readableBytes();
        if (peerEnded || creditBytes.get() <= 0 || creditMessages.decrementAndGet() < 0) {
            frame.release();
            return false;
        }
        creditBytes.addAndGet(-size);
        received++;
        if (done) {
            frame.release(); // within credit, but nobody reads it any more
            return true;
        }
        buffered.add(frame);
        drain();
        return true;
    }

    /** The peer's stream ended (event loop): completed when {@code failure} is null. */
    void onEnd(Throwable failure) {
        peerEnded = true;
        if (end == null) {
            end = failure == null ? COMPLETED : failure;
            drain();
        }
    }

    /** This side ends the stream (the call failed or closed): what is held is dropped, the subscriber told. */
    void fail(Throwable failure) {
        if (end == null || end == COMPLETED) {
            end = failure;
        }
        done = true;
        drain();
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        try {
            delivery.execute(this::drainLoop);
        } catch (RejectedExecutionException closing) {
            // the executor is gone (shutting down): drop what is held here
            wip.set(0);
            release();
        }
    }

    private void drainLoop() {
        int missed = 1;
        do {
            Flow.Subscriber<? super Object> s = subscriber;
            if (done) {
                release();
                Object e = end;
                if (s != null && e != null && e != COMPLETED && !(e instanceof Delivered)) {
                    end = new Delivered();
                    s.onError((Throwable) e);
                }
            } else {
                if (end != null && !buffered.isEmpty()) {
                    settle();
                }
                if (s != null) {
                    deliver(s);
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void deliver(Flow.Subscriber<? super Object> s) {
        while (demand.get() > 0 && !done) {
            Object message = settled.poll();
            if (message == null) {
                Frame f = buffered.poll();
                if (f == null) {
                    break;
                }
                int size = f.body().readableBytes();
                try {
                    message = read(f, delivered + 1);
                } catch (RpcException e) {
                    done = true;
                    peer.failed(e);
                    end = new Delivered();
                    release();
                    s.onError(e);
                    return;
                }
                taken(size);
            }
            demand.decrementAndGet();
            delivered++;
            s.onNext(message);
        }
        Object e = end;
        if (!done && buffered.isEmpty() && settled.isEmpty() && e != null && !(e instanceof Delivered)) {
            done = true;
            end = new Delivered();
            if (e == COMPLETED) {
                s.onComplete();
            } else {
                s.onError((Throwable) e);
            }
        }
    }

    /**
     * The peer ended with messages still held (delivery thread): they are read now and the frames
     * released; a message that cannot be read becomes the stream's end, after those before it.
     */
    private void settle() {
        long n = delivered + settled.size();
        Frame f;
        while ((f = buffered.poll()) != null) {
            try {
                settled.add(read(f, ++n));
            } catch (RpcException e) {
                end = e;
                peer.failed(e);
                release();
                return;
            }
        }
    }

    /** Reads message number {@code n} and releases its frame; a message is never null (rule 2.13). */
    private Object read(Frame f, long n) throws RpcException {
        try {
            Object message = peer.decode(f);
            if (message == null) {
                throw new RpcException(
                        RpcStatus.SERIALIZATION_ERROR,
                        description + ": message " + n + " is empty (null): a stream carries no nulls");
            }
            return message;
        } catch (RpcException e) {
            throw e;
        } catch (Throwable t) {
            throw new RpcException(
                    RpcStatus.SERIALIZATION_ERROR,
                    description + ": cannot read message " + n + ": " + t.getMessage(),
                    t);
        } finally {
            f.release();
        }
    }

    /** A message of {@code size} bytes was taken: half a window taken is granted back. */
    private void taken(int size) {
        takenMessages++;
        takenBytes += size;
        if (end == null && (takenMessages >= Math.max(1, windowMessages / 2) || takenBytes >= windowBytes / 2)) {
            int m = takenMessages;
            int b = (int) Math.min(Integer.MAX_VALUE, takenBytes);
            takenMessages = 0;
            takenBytes = 0;
            creditMessages.addAndGet(m);
            creditBytes.addAndGet(b);
            peer.grant(m, b);
        }
    }

    /** Grants the peer its first window beyond the initial one, when this side starts with less. */
    void grantWindow() {
        long m = windowMessages - creditMessages.get();
        long b = windowBytes - creditBytes.get();
        if (m > 0 || b > 0) {
            int gm = (int) Math.max(0, m);
            int gb = (int) Math.max(0, b);
            creditMessages.addAndGet(gm);
            creditBytes.addAndGet(gb);
            peer.grant(gm, gb);
        }
    }

    private void release() {
        settled.clear();
        Frame f;
        while ((f = buffered.poll()) != null) {
            f.release();
        }
    }

    /** The end was told to the subscriber. */
    private static final class Delivered {}

    private static final Flow.Subscription NOOP = new Flow.Subscription() {
        @Override
        public void request(long n) {}

        @Override
        public void cancel() {}
    };
}
