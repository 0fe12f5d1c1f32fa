package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.Invocations;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * The caller's side of one stream call, beside its {@link ClientCall} (the deadline, the pending
 * entry, the future that ends with it). Nothing of the stream moves before the provider accepts
 * it with its first CREDIT: a provider from before streams answers the request as an ordinary
 * call, and is told apart. Then the caller's stream ({@link OutboundStream}) is subscribed under
 * the provider's credit, and the provider's messages ({@link InboundStream}) go to the subscriber
 * the invocation names, under the credit this side grants. The provider's STREAM_END ends the call.
 *
 * <p>Frames arrive on the connection's event loop; the messages are delivered there too.
 */
final class ClientStream implements InboundStream.Peer, OutboundStream.Sink {
    private final ClientCall call;
    private final Invocation invocation;
    private final MethodDescriptor.Shape shape;
    private final NettyClientTransport transport;
    private final Compressor compressor;
    /** The provider's messages; null when it answers once (a client stream). */
    private final InboundStream inbound;
    /** The caller's messages, once accepted; null when the caller sends none. */
    private volatile OutboundStream outbound;
    /** Where the provider's messages are delivered and the caller's producer is asked for more. */
    private final Executor delivery;
    /** A client stream's one result, read from the provider's one message. */
    private Object result;

    private boolean resultRead;
    /** Set on the event loop once the provider accepted the stream. */
    private boolean accepted;
    /** Set on the event loop once the provider's stream failed in its implementation, told after its messages. */
    private volatile boolean peerEnded;

    ClientStream(ClientCall call, Invocation invocation, NettyClientTransport transport, Compressor compressor) {
        this.call = call;
        this.invocation = invocation;
        this.shape = invocation.method().shape();
        this.transport = transport;
        this.compressor = compressor;
        this.delivery = new Executor() {
            private Executor loop; // the connection's, once the call has one

            @Override
            public void execute(Runnable r) {
                Executor l = loop;
                if (l == null) {
                    ClientConnection c = call.connection;
                    l = transport.eventLoopFor(c);
                    if (c != null) {
                        loop = l;
                    }
                }
                if (l instanceof EventExecutor e && e.inEventLoop()) {
                    r.run(); // on the connection's loop already (a message, a credit): no hop
                } else {
                    l.execute(r);
                }
            }
        };
        this.inbound = shape.providerStreams()
                ? new InboundStream(
                        this,
                        delivery,
                        call.description,
                        ProtocolConstants.INITIAL_STREAM_MESSAGES,
                        ProtocolConstants.INITIAL_STREAM_BYTES,
                        ProtocolConstants.INITIAL_STREAM_MESSAGES,
                        ProtocolConstants.INITIAL_STREAM_BYTES)
                : null;
    }

    /** Messages the provider sent, for a message that names how far the stream got. */
    long received() {
        return inbound == null ? 0 : inbound.received();
    }

    /** A CREDIT from the provider (event loop): the first accepts the stream. */
    void onCredit(Frame frame) {
        int messages;
        int bytes;
        try {
            messages = StreamCodec.creditMessages(frame.body());
            bytes = StreamCodec.creditBytes(frame.body());
        } catch (IllegalArgumentException e) {
            violated("sent a malformed credit: " + e.getMessage());
            return;
        }
        if (!accepted) {
            accepted = true;
            if (call.isDone()) {
                return; // ended while the provider was accepting it: nothing of it starts
            }
            Invocations.streamAccepted(invocation);
            OutboundStream o = null;
            if (shape.callerStreams()) {
                // Made before the caller's subscriber hears of the stream: a cancel from it finds
                // the upload to cancel (ended() reads this field from any thread).
                o = new OutboundStream(this, call.description, messages, bytes, delivery);
                outbound = o;
            }
            if (inbound != null && invocation.responses() != null) {
                inbound.subscribe(invocation.responses());
            }
            if (o != null && !call.isDone()) {
                Object upload = invocation.arguments()[invocation.method().streamParameter()];
                if (upload instanceof Flow.Publisher<?> p) {
                    @SuppressWarnings("unchecked")
                    Flow.Publisher<Object> publisher = (Flow.Publisher<Object>) p;
                    try {
                        publisher.subscribe(o);
                    } catch (RuntimeException e) {
                        end(e); // rule 1.9: subscribe returns normally; the call cannot go on
                    }
                } else {
                    end(new NullPointerException("the stream parameter is null"));
                }
            }
            return;
        }
        if (outbound != null) {
            outbound.grant(messages, bytes);
        }
    }

    /** A message of the provider's (event loop). */
    void onMessage(Frame frame) {
        if (!accepted) {
            frame.release();
            violated("sent a message before it accepted the stream");
            return;
        }
        if (inbound == null) {
            // A client stream's one result.
            if (resultRead) {
                frame.release();
                violated("sent a second result to a call that takes one");
                return;
            }
            resultRead = true;
            try {
                result = decode(frame);
            } catch (Throwable t) {
                call.fail(new RpcException(
                        RpcStatus.SERIALIZATION_ERROR,
                        call.description + ": cannot read the result from " + call.endpoint + ": " + t.getMessage(),
                        t));
            } finally {
                frame.release();
            }
            return;
        }
        if (!inbound.onMessage(frame)) {
            violated("sent a message beyond the credit it was granted");
        }
    }

    /** The provider's STREAM_END (event loop): the call is over. */
    void onEnd(Frame frame) {
        RpcStatus status = RpcStatus.fromCode(frame.status());
        if (status == RpcStatus.OK) {
            if (outbound != null) {
                outbound.cancel(); // the provider needs no more of the caller's messages
            }
            if (inbound != null) {
                inbound.onEnd(null);
            }
            call.answered(null);
            call.succeed(result);
            return;
        }
        ErrorCodec.RemoteError error;
        try {
            error = ErrorCodec.readError(frame.body());
        } catch (RuntimeException e) {
            error = new ErrorCodec.RemoteError(null, "(an error body that could not be read)", null);
        }
        String where = call.description + " on " + call.endpoint + ", after it sent " + received() + " messages, ";
        RpcException e = status == RpcStatus.APPLICATION_ERROR
                ? new RpcException(
                        where + "threw " + error.className() + (error.message() != null ? ": " + error.message() : ""),
                        error.className(),
                        error.message(),
                        error.stackTrace())
                : new RpcException(status, where + "ended " + status + ": " + error.message());
        if (inbound != null && status == RpcStatus.APPLICATION_ERROR) {
            // The implementation's own failure comes after its messages: the subscriber has those
            // first. Any other end (a deadline, a shutdown, a refusal) drops what is held, at once.
            peerEnded = true;
            inbound.onEnd(e);
        }
        call.answered(status == RpcStatus.SERVER_BUSY || status == RpcStatus.INTERNAL ? status.name() : null);
        call.fail(e);
    }

    /** The call ended, however (any thread): what is left of the stream is dropped, the subscriber told. */
    void ended(Throwable cause) {
        OutboundStream o = outbound;
        if (o != null) {
            o.cancel();
        }
        if (inbound != null && cause != null && !peerEnded) {
            inbound.fail(cause); // ended here (a deadline, a cancel, the connection): what is held is dropped
        }
    }

    private void violated(String what) {
        RpcException e = new RpcException(
                RpcStatus.INTERNAL, call.description + ": " + call.endpoint + " " + what + "; the stream was ended");
        cancelOnProvider();
        call.fail(e);
    }

    private void cancelOnProvider() {
        ClientConnection c = call.connection;
        if (c != null && c.channel.isActive()) {
            c.writes.enqueue(RpcCodec.encodeCancel(c.channel.alloc(), call.id));
        }
    }

    // InboundStream.Peer

    @Override
    public void grant(int messages, int bytes) {
        ClientConnection c = call.connection;
        if (c != null && !call.isDone()) {
            c.writes.enqueue(StreamCodec.encodeCredit(c.channel.alloc(), call.id, messages, bytes));
        }
    }

    @Override
    public void cancelled() {
        // The caller's subscriber wants no more: the call is over for both sides.
        failed(new RpcException(
                RpcStatus.CANCELLED,
                call.description + ": cancelled by its subscriber after " + received() + " messages"));
    }

    @Override
    public void subscriberThrew(Throwable thrown) {
        failed(new RpcException(
                RpcStatus.CANCELLED,
                call.description + ": the subscriber of the stream threw " + thrown
                        + " (rule 2.13 of Reactive Streams); the stream was ended after " + received() + " messages",
                thrown));
    }

    @Override
    public void failed(RpcException why) {
        if (!call.isDone()) {
            cancelOnProvider();
            call.fail(why);
        }
    }

    @Override
    public Object decode(Frame message) throws Exception {
        String bad = message.decompress(transport.compressors(), transport.maxFrameLength());
        if (bad != null) {
            throw new RpcException(RpcStatus.SERIALIZATION_ERROR, call.description + ": bad message body: " + bad);
        }
        return RpcCodec.readMessage(
                message.body(),
                call.serializer,
                call.target.resultType(),
                call.target.genericResultType(),
                call.deadlineNanos);
    }

    // OutboundStream.Sink

    @Override
    public ByteBuf encode(Object item) throws Exception {
        return StreamCodec.encodeMessage(
                ByteBufAllocator.DEFAULT,
                call.id,
                call.serializer,
                compressor,
                transport.compressThreshold(),
                transport.maxFrameLength(),
                item,
                invocation.method().streamType());
    }

    @Override
    public void write(ByteBuf frame) {
        ClientConnection c = call.connection;
        if (c == null || call.isDone()) {
            frame.release();
            return;
        }
        c.writes.enqueueStream(frame);
    }

    @Override
    public boolean hasRoom() {
        ClientConnection c = call.connection;
        return c == null || c.writes.hasStreamRoom();
    }

    @Override
    public void whenRoom(Runnable sender) {
        ClientConnection c = call.connection;
        if (c == null) {
            sender.run();
        } else {
            c.writes.whenStreamRoom(sender);
        }
    }

    @Override
    public void end(Throwable failure) {
        ClientConnection c = call.connection;
        if (c == null || call.isDone()) {
            return;
        }
        if (failure == null) {
            c.writes.enqueueStream(StreamCodec.encodeEnd(c.channel.alloc(), call.id, call.serializer.id()));
            return;
        }
        // The caller's own stream failed: the call cannot go on.
        cancelOnProvider();
        call.fail(
                failure instanceof RpcException r
                        ? r
                        : new RpcException(
                                RpcStatus.CANCELLED,
                                call.description + ": the caller's stream failed: " + failure,
                                failure));
    }
}
