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
import java.util.concurrent.atomic.AtomicReference;

/**
 * The receiving side of one stream: the peer's messages as a {@link Flow.Publisher} to one local
 * subscriber, under credit. The peer may send only what this side granted: the stream's initial
 * window, then as many messages and bytes as the subscriber has taken, granted back once half a
 * window was taken. So the messages held here never exceed one window (plus one message's bytes),
 * whatever the subscriber requests, and a subscriber that requests nothing stops the peer once
 * the window is full. Messages are decoded and delivered on {@code delivery}, one at a time, in
 * order, each only once the subscriber asked for it; a peer that sends beyond its credit ends the
 * stream.
 *
 * <p>Every signal to the subscriber, {@code onSubscribe} first, comes from one drain loop, so they
 * never overlap (rules 1.3, 1.9); the end is told once (rule 1.7); a subscriber that throws is
 * taken to have cancelled (rule 2.13), and the stream ends with a message naming what it threw.
 * Frames arrive on the connection's event loop ({@link #onMessage}, {@link #onEnd}); the
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

        /**
         * The local subscriber threw {@code thrown} from one of its methods (rule 2.13): it is taken
         * to have cancelled; the call ends, naming what it threw.
         */
        void subscriberThrew(Throwable thrown);

        /** Reads one message of the peer's; the frame is released by the caller. */
        Object decode(Frame message) throws Exception;
    }

    /** The peer's stream completed. */
    private static final Object COMPLETED = new Object();
    /** The end was told to the subscriber, or it cancelled: nothing more is told. */
    private static final Object TOLD = new Object();

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
    /** null while the stream is open; then {@link #COMPLETED} or the failure to tell; then {@link #TOLD}. */
    private final AtomicReference<Object> end = new AtomicReference<>();
    /** Set when no more messages are delivered: this side failed the stream, or the subscriber cancelled. */
    private volatile boolean done;

    private long received; // event loop only
    private boolean peerEnded; // event loop only
    private boolean subscribed; // by the drain's owner only
    private boolean detached; // drain only
    private int takenMessages; // drain only
    private long takenBytes; // drain only
    private long delivered; // drain only

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

    /** Whether the peer ended its stream (event loop): a message after that is a violation. */
    boolean peerEnded() {
        return peerEnded;
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
        if (wip.getAndIncrement() != 0) {
            return; // a drain is running: it tells onSubscribe first, before anything else
        }
        // This thread owns the drain: onSubscribe is told here, before subscribe returns (as
        // publishers usually do), and the rest goes on where deliveries run.
        subscribed = true;
        try {
            s.onSubscribe(this);
        } catch (Throwable t) {
            subscriberThrew(t);
        }
        try {
            delivery.execute(this::drainLoop);
        } catch (RejectedExecutionException closing) {
            drainLoop();
        }
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
            end.set(TOLD); // a subscriber that cancelled is told nothing more
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

    /** The peer's stream ended (event loop): completed when {@code failure} is null; told after what is held. */
    void onEnd(Throwable failure) {
        peerEnded = true;
        if (end.compareAndSet(null, failure == null ? COMPLETED : failure)) {
            drain();
        }
    }

    /**
     * This side ends the stream (the call failed or closed): what is held is dropped, and the
     * subscriber told {@code failure}, or the peer's own failure when that came first.
     */
    void fail(Throwable failure) {
        for (; ; ) {
            Object e = end.get();
            if (e == TOLD || e instanceof Throwable || end.compareAndSet(e, failure)) {
                break;
            }
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
            drainLoop(); // no thread for it (the client is closing): told here, not never
        }
    }

    private void drainLoop() {
        int missed = 1;
        do {
            Flow.Subscriber<? super Object> s = subscriber;
            try {
                if (s != null && !subscribed) {
                    subscribed = true;
                    s.onSubscribe(this);
                }
                if (done) {
                    release();
                    tell(s);
                } else {
                    if (end.get() != null && !detached) {
                        detach();
                    }
                    if (subscribed) {
                        deliver(s);
                    }
                }
            } catch (Throwable t) {
                subscriberThrew(t);
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void deliver(Flow.Subscriber<? super Object> s) {
        while (demand.get() > 0 && !done) {
            Frame f = buffered.poll();
            if (f == null) {
                break;
            }
            int size = f.body().readableBytes();
            Object message;
            try {
                message = read(f, delivered + 1);
            } catch (RpcException e) {
                done = true;
                end.set(TOLD);
                release();
                peer.failed(e);
                s.onError(e);
                return;
            }
            taken(size);
            demand.decrementAndGet();
            delivered++;
            s.onNext(message);
        }
        if (!done && buffered.isEmpty()) {
            Object e = end.get();
            if (e != null && e != TOLD && end.compareAndSet(e, TOLD)) {
                done = true;
                if (e == COMPLETED) {
                    s.onComplete();
                } else {
                    s.onError((Throwable) e);
                }
            }
        }
    }

    /** Tells the subscriber the failure this side ended the stream with, once. */
    private void tell(Flow.Subscriber<? super Object> s) {
        if (s == null || !subscribed) {
            return; // told when it subscribes
        }
        Object e = end.get();
        if (e instanceof Throwable t && end.compareAndSet(e, TOLD)) {
            s.onError(t);
        }
    }

    /** The subscriber threw (rule 2.13): it is taken to have cancelled, and the stream ends naming the throw. */
    private void subscriberThrew(Throwable t) {
        boolean wasDone = done;
        done = true;
        end.set(TOLD);
        release();
        if (!wasDone) {
            peer.subscriberThrew(t);
        }
    }

    /**
     * The peer ended with messages still held: their bytes move out of the connection's buffers
     * (and its memory budget), which a subscriber that never comes back would otherwise pin. They
     * are still read only as the subscriber asks.
     */
    private void detach() {
        detached = true;
        for (Frame f : buffered) {
            f.detach();
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
        if (end.get() == null && (takenMessages >= Math.max(1, windowMessages / 2) || takenBytes >= windowBytes / 2)) {
            int m = takenMessages;
            int b = (int) Math.min(Integer.MAX_VALUE, takenBytes);
            takenMessages = 0;
            takenBytes = 0;
            creditMessages.addAndGet(m);
            creditBytes.addAndGet(b);
            peer.grant(m, b);
        }
    }

    private void release() {
        Frame f;
        while ((f = buffered.poll()) != null) {
            f.release();
        }
    }

    private static final Flow.Subscription NOOP = new Flow.Subscription() {
        @Override
        public void request(long n) {}

        @Override
        public void cancel() {}
    };
}
