package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Flow;

/**
 * The sending side of one stream: subscribes to the local producer and sends its items to the
 * peer, never more than the peer's credit allows. It asks the producer for as many items as the
 * peer has message credit for, so a peer that grants nothing stops the producer; an item encoded
 * while the byte credit is spent waits here (at most the items already asked for) until the peer
 * grants more. The producer's end ends this side's stream.
 *
 * <p>The producer calls the {@link Flow.Subscriber} methods (one at a time, as Reactive Streams
 * says); the connection calls {@link #grant} and {@link #cancel} from its event loop. A monitor per
 * stream orders the two; it is never held while the producer is called.
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
    }

    private final Sink sink;
    private final String description;
    private long creditMessages;
    private long creditBytes;
    /** Items asked of the producer and not yet received. */
    private long asked;

    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>(4);
    private Flow.Subscription upstream;
    private boolean cancelled;
    private boolean ended;
    /** The producer's end, held until what waits for byte credit was sent. */
    private Throwable endFailure;

    private boolean endPending;
    private long sent;

    OutboundStream(Sink sink, String description, long initialMessages, long initialBytes) {
        this.sink = sink;
        this.description = description;
        this.creditMessages = initialMessages;
        this.creditBytes = initialBytes;
    }

    /** Messages sent so far. */
    synchronized long sent() {
        return sent;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        Objects.requireNonNull(s, "subscription");
        long ask;
        synchronized (this) {
            if (upstream != null || cancelled) {
                s.cancel(); // rule 2.5: one subscription; or the stream is over already
                return;
            }
            upstream = s;
            ask = toAsk();
        }
        if (ask > 0) {
            s.request(ask);
        }
    }

    @Override
    public void onNext(Object item) {
        if (item == null) {
            onError(new NullPointerException(description + ": the producer sent null (rule 2.13)"));
            return;
        }
        ByteBuf frame;
        try {
            frame = sink.encode(item);
        } catch (Throwable t) {
            Flow.Subscription s;
            synchronized (this) {
                s = upstream;
            }
            if (s != null) {
                s.cancel();
            }
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
            waiting.add(frame);
            flush();
            ask = toAsk();
        }
        if (ask > 0) {
            upstream.request(ask);
        }
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
                return; // sent once the peer grants the bytes for what waits
            }
            ended = true;
        }
        sink.end(failure);
    }

    /** The peer grants more (event loop). */
    void grant(int messages, int bytes) {
        long ask;
        boolean end;
        Flow.Subscription s;
        synchronized (this) {
            if (cancelled || ended) {
                return;
            }
            creditMessages += messages;
            creditBytes += bytes;
            flush();
            end = endPending && waiting.isEmpty();
            if (end) {
                ended = true;
            }
            ask = end ? 0 : toAsk();
            s = upstream;
        }
        if (end) {
            sink.end(endFailure);
        } else if (ask > 0 && s != null) {
            s.request(ask);
        }
    }

    /** The stream is over on this side (the peer cancelled, the call ended): the producer is cancelled. */
    void cancel() {
        Flow.Subscription s;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            release();
            s = upstream;
        }
        if (s != null) {
            s.cancel();
        }
    }

    /** Writes what waits while there is byte credit; under the monitor. */
    private void flush() {
        ByteBuf f;
        while (creditBytes > 0 && creditMessages > 0 && (f = waiting.poll()) != null) {
            creditMessages--;
            creditBytes -= f.readableBytes() - io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
            sent++;
            sink.write(f);
        }
    }

    /** How many more items to ask of the producer: the message credit not yet asked for; under the monitor. */
    private long toAsk() {
        if (upstream == null || endPending || cancelled || creditBytes <= 0) {
            return 0;
        }
        long want = creditMessages - waiting.size() - asked;
        if (want <= 0) {
            return 0;
        }
        asked += want;
        return want;
    }

    private void release() {
        ByteBuf f;
        while ((f = waiting.poll()) != null) {
            f.release();
        }
    }
}
