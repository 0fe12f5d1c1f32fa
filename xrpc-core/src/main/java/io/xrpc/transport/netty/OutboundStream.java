package io.xrpc.transport.netty;

import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sending side of one stream: subscribes to the local producer and sends its items to the
 * peer, never more than the peer's credit allows, and never more than the connection has room
 * for. What it holds is bounded whatever the peer grants: it asks the producer for at most
 * {@link #PREFETCH} items, fewer when its items are large (as many as the byte credit left is
 * likely to take, one at least), and asks nothing while the connection's stream lane is full
 * ({@link WriteQueue#hasStreamRoom}); an item encoded while the credit or the room is spent waits
 * here until the peer grants more or the connection drains. The producer's end ends this side's
 * stream.
 *
 * <p>The producer calls the {@link Flow.Subscriber} methods (one at a time, as Reactive Streams
 * says); the connection calls {@link #grant} and {@link #cancel} from its event loop. A monitor per
 * stream orders the two and is never held while the producer is called. What this side asks of the
 * producer ({@code request}, {@code cancel}) goes through one drain on {@code signals}, so the
 * producer sees those calls one at a time (rule 2.7) and, on a provider, on a call thread rather
 * than on the event loop; a producer that throws from them ends the stream.
 */
final class OutboundStream implements Flow.Subscriber<Object> {
    /** What the stream asks of its connection. */
    interface Sink {
        /** Encodes one item as a message frame; throws what the serializer throws. */
        ByteBuf encode(Object item) throws Exception;

        /** Writes an encoded message frame. */
        void write(ByteBuf frame);

        /** The producer ended: completed when {@code failure} is null. Called once. */
        void end(Throwable failure);

        /** Whether the connection takes more of this stream now (its stream lane has room). */
        boolean hasRoom();

        /** Runs {@code sender} once the connection has room again. */
        void whenRoom(Runnable sender);
    }

    /**
     * Items in hand at most (asked of the producer, or encoded and waiting), whatever credit the
     * peer grants: a peer that grants much and reads nothing costs this stream no more than this.
     */
    static final int PREFETCH = 256;

    private final Sink sink;
    private final String description;
    private final Executor signals;
    private long creditMessages;
    private long creditBytes;
    /** Items asked of the producer and not yet received. */
    private long asked;
    /** The largest message body encoded so far: what the next item is taken to cost; 0 before the first. */
    private long itemBytes;

    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>(4);
    private long waitingBytes;
    private Flow.Subscription upstream;
    private boolean cancelled;
    private boolean ended;
    /** The producer's end, held until what waits for credit or room was sent. */
    private Throwable endFailure;

    private boolean endPending;
    private long sent;
    /** Set while this stream waits for room on its connection. */
    private boolean waitingForRoom;

    /**
     * Items to request of the producer, not yet requested; -1 once it is to be cancelled,
     * {@code Long.MIN_VALUE} once it was (or threw, and is told nothing more).
     */
    private final AtomicLong toRequest = new AtomicLong();

    private final AtomicInteger signalling = new AtomicInteger();

    /**
     * @param signals where the producer's {@code request} and {@code cancel} are called
     */
    OutboundStream(Sink sink, String description, long initialMessages, long initialBytes, Executor signals) {
        this.sink = sink;
        this.description = description;
        this.creditMessages = initialMessages;
        this.creditBytes = initialBytes;
        this.signals = signals;
    }

    /** Messages sent so far. */
    synchronized long sent() {
        return sent;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        Objects.requireNonNull(s, "subscription");
        long ask;
        boolean cancel;
        synchronized (this) {
            if (upstream != null) {
                s.cancel(); // rule 2.5: one subscription
                return;
            }
            upstream = s;
            cancel = cancelled;
            ask = cancel ? 0 : toAsk();
        }
        if (cancel) {
            cancelProducer(); // over before it subscribed
        } else {
            signal(ask);
        }
    }

    @Override
    public void onNext(Object item) {
        if (item == null) {
            onError(new NullPointerException(description + ": the producer sent null (rule 2.13)"));
            return;
        }
        long unasked;
        synchronized (this) {
            if (cancelled || ended || endPending) {
                return; // over already: an item that crossed the cancel is not even encoded
            }
            unasked = asked <= 0 ? sent + waiting.size() + 1 : 0;
        }
        if (unasked > 0) {
            // Held here, it would be memory no credit bounds: the producer broke its contract.
            cancelProducer();
            finish(new RpcException(
                    RpcStatus.INTERNAL,
                    description + ": the producer sent message " + unasked
                            + " that was not requested (rule 1.1 of Reactive Streams); the stream was ended"));
            return;
        }
        ByteBuf frame;
        try {
            frame = sink.encode(item);
        } catch (Throwable t) {
            cancelProducer();
            finish(
                    t instanceof RpcException r
                            ? r
                            : new RpcException(
                                    RpcStatus.SERIALIZATION_ERROR,
                                    description + ": cannot write message " + (sent() + 1) + ": " + t.getMessage(),
                                    t));
            return;
        }
        long ask;
        synchronized (this) {
            if (cancelled || ended) {
                frame.release();
                return;
            }
            asked--;
            long size = frame.readableBytes() - HEADER_LENGTH;
            itemBytes = Math.max(itemBytes, size);
            waiting.add(frame);
            waitingBytes += size;
            flush();
            ask = toAsk();
        }
        signal(ask);
    }

    @Override
    public void onError(Throwable failure) {
        finish(failure == null ? new NullPointerException("onError(null)") : failure);
    }

    @Override
    public void onComplete() {
        finish(null);
    }

    private void finish(Throwable failure) {
        synchronized (this) {
            if (cancelled || ended || endPending) {
                return;
            }
            endPending = true;
            endFailure = failure;
            if (failure != null) {
                release(); // a failed stream's held messages would arrive after its failure
            }
            if (!waiting.isEmpty()) {
                return; // sent once the peer grants the credit, or the connection the room, for what waits
            }
            ended = true;
        }
        sink.end(failure);
    }

    /** The peer grants more (event loop). */
    void grant(int messages, int bytes) {
        synchronized (this) {
            if (cancelled || ended) {
                return;
            }
            creditMessages += messages;
            creditBytes += bytes;
        }
        proceed();
    }

    /** The connection has room again (event loop): what waits is written, and more asked for. */
    private void roomAgain() {
        synchronized (this) {
            waitingForRoom = false;
        }
        proceed();
    }

    /** Writes what waits, ends the stream if that was all, else asks the producer for more. */
    private void proceed() {
        long ask;
        boolean end;
        synchronized (this) {
            if (cancelled || ended) {
                return;
            }
            flush();
            end = endPending && waiting.isEmpty();
            if (end) {
                ended = true;
            }
            ask = end ? 0 : toAsk();
        }
        if (end) {
            sink.end(endFailure);
        } else {
            signal(ask);
        }
    }

    /** The stream is over on this side (the peer cancelled, the call ended): the producer is cancelled. */
    void cancel() {
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            release();
        }
        cancelProducer();
    }

    /** Writes what waits while there is credit and room; under the monitor. */
    private void flush() {
        while (creditBytes > 0 && creditMessages > 0 && !waiting.isEmpty()) {
            if (!sink.hasRoom()) {
                awaitRoom();
                return;
            }
            ByteBuf f = waiting.poll();
            long size = f.readableBytes() - HEADER_LENGTH;
            waitingBytes -= size;
            creditMessages--;
            creditBytes -= size;
            sent++;
            sink.write(f);
        }
    }

    /**
     * How many more items to ask of the producer (under the monitor): what the message credit and
     * {@link #PREFETCH} allow beyond what is in hand, and no more than the byte credit left is
     * likely to take at the size of the largest item so far (one at a time until one was seen).
     */
    private long toAsk() {
        if (upstream == null || endPending || cancelled) {
            return 0;
        }
        long bytesLeft = creditBytes - waitingBytes;
        if (bytesLeft <= 0) {
            return 0;
        }
        if (!sink.hasRoom()) {
            awaitRoom();
            return 0;
        }
        long inHand = waiting.size() + asked;
        long want = Math.min(creditMessages, PREFETCH) - inHand;
        long byBytes = itemBytes == 0 ? 1 : Math.max(1, (bytesLeft + itemBytes - 1) / itemBytes);
        want = Math.min(want, byBytes - asked);
        if (want <= 0) {
            return 0;
        }
        asked += want;
        return want;
    }

    /** Asks to be called back when the connection has room; under the monitor. */
    private void awaitRoom() {
        if (!waitingForRoom) {
            waitingForRoom = true;
            sink.whenRoom(this::roomAgain);
        }
    }

    private void release() {
        ByteBuf f;
        while ((f = waiting.poll()) != null) {
            f.release();
        }
        waitingBytes = 0;
    }

    // What this side asks of the producer, one call at a time, on the signals executor.

    private void signal(long n) {
        if (n <= 0) {
            return;
        }
        toRequest.getAndUpdate(r -> r < 0 ? r : r + n < 0 ? Long.MAX_VALUE : r + n);
        scheduleSignals();
    }

    private void cancelProducer() {
        if (toRequest.getAndUpdate(r -> r == Long.MIN_VALUE ? r : -1) != Long.MIN_VALUE) {
            scheduleSignals(); // cancelled once, however many reasons there were
        }
    }

    private void scheduleSignals() {
        if (signalling.getAndIncrement() != 0) {
            return;
        }
        try {
            signals.execute(this::signalLoop);
        } catch (RejectedExecutionException closing) {
            signalLoop(); // no thread to spare (a full pool, a closing client): here, rather than never
        }
    }

    private void signalLoop() {
        int missed = 1;
        do {
            Flow.Subscription s;
            synchronized (this) {
                s = upstream;
            }
            long r = toRequest.get();
            if (s != null && r != 0) {
                if (r < 0) {
                    if (toRequest.getAndSet(Long.MIN_VALUE) != Long.MIN_VALUE) {
                        callProducer(s, -1); // once
                    }
                } else if (toRequest.compareAndSet(r, 0)) {
                    callProducer(s, r);
                } else {
                    continue; // changed meanwhile: look again
                }
            }
            missed = signalling.addAndGet(-missed);
        } while (missed != 0);
    }

    private void callProducer(Flow.Subscription s, long n) {
        try {
            if (n < 0) {
                s.cancel();
            } else {
                s.request(n);
            }
        } catch (Throwable t) {
            // The producer broke rule 3.15/3.16: the stream cannot go on.
            toRequest.set(Long.MIN_VALUE);
            finish(new RpcException(
                    RpcStatus.INTERNAL,
                    description + ": the producer threw from " + (n < 0 ? "cancel()" : "request(" + n + ")") + ": " + t,
                    t));
        }
    }
}
