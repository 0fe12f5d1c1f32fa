package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;

/**
 * The provider's side of one stream call, beside its {@link ServerCall} (which answers the call
 * once and ends it). Accepting the stream sends the caller its first CREDIT; the caller's messages
 * then arrive into an {@link InboundStream} the implementation reads, decoded on call threads under
 * the credit this side grants, and the implementation's publisher is read by an
 * {@link OutboundStream} under the caller's credit. The server's policy answers the call once, as
 * it answers any: with one STREAM_END after the publisher's end (for a client stream, after its one
 * result sent as a message), a failure or the deadline; a CANCEL from the caller ends it with
 * nothing sent.
 */
final class ServerStream implements InboundStream.Peer, OutboundStream.Sink {
    /** Messages a caller may send before it is granted more: the provider's window per stream. */
    static final int WINDOW_MESSAGES = ProtocolConstants.INITIAL_STREAM_MESSAGES;
    /** Bytes of messages a caller may send before it is granted more. */
    static final int WINDOW_BYTES = ProtocolConstants.INITIAL_STREAM_BYTES;

    private final ServerCall call;
    private final ServerChannelHandler connection;
    private final NettyServerTransport server;
    private final MethodDescriptor method;
    /** The caller's messages; null when it sends none. */
    private final InboundStream inbound;
    /** What the implementation sends, subscribed to its publisher when it answers; null for a client stream. */
    private final OutboundStream outbound;
    /** Completes when the implementation's publisher ended. */
    private final CompletableFuture<Void> produced = new CompletableFuture<>();

    private volatile boolean accepted;

    ServerStream(ServerCall call, ServerChannelHandler connection, NettyServerTransport server, MethodDescriptor m) {
        this.call = call;
        this.connection = connection;
        this.server = server;
        this.method = m;
        this.inbound = m.shape().callerStreams()
                ? new InboundStream(
                        this,
                        this::deliver,
                        call.description(),
                        WINDOW_MESSAGES,
                        WINDOW_BYTES,
                        WINDOW_MESSAGES,
                        WINDOW_BYTES)
                : null;
        this.outbound = m.shape().providerStreams()
                ? new OutboundStream(
                        this,
                        call.description(),
                        ProtocolConstants.INITIAL_STREAM_MESSAGES,
                        ProtocolConstants.INITIAL_STREAM_BYTES,
                        server.executor())
                : null;
    }

    /** Whether the stream was accepted: from then on the call ends with a STREAM_END, not a response. */
    boolean accepted() {
        return accepted;
    }

    /**
     * Accepts the stream (a call thread, once the call passed its checks): the caller is told with
     * a CREDIT granting its window, and may send from now on. Returns what it sends, or null.
     */
    Flow.Publisher<Object> accept() {
        if (call.isAnswered()) {
            return inbound; // ended before it was accepted: nothing is sent for it
        }
        accepted = true;
        connection.writes.enqueue(StreamCodec.encodeCredit(
                connection.alloc(),
                call.id(),
                inbound == null ? 0 : WINDOW_MESSAGES,
                inbound == null ? 0 : WINDOW_BYTES));
        return inbound;
    }

    /**
     * Sends what {@code messages} publishes, under the caller's credit (a method that streams
     * back); the future completes when the publisher ended, failed with its failure, after which
     * the call is answered (its STREAM_END).
     */
    CompletableFuture<Void> send(Flow.Publisher<?> messages) {
        @SuppressWarnings("unchecked")
        Flow.Publisher<Object> publisher = (Flow.Publisher<Object>) messages;
        try {
            publisher.subscribe(outbound);
        } catch (RuntimeException e) {
            produced.completeExceptionally(e);
        }
        return produced;
    }

    /**
     * The call's answer: for a method that streams back, its end once the publisher completed
     * ({@code value} is null); for a client stream, the one result, sent as the stream's one
     * message before its end.
     */
    void answer(Object value) {
        if (call.isAnswered()) {
            return; // ended already (a deadline, a cancel): the result goes nowhere
        }
        if (!method.shape().providerStreams()) {
            ByteBuf message;
            try {
                message = encode(value);
            } catch (Exception | StackOverflowError e) {
                call.answerError(
                        RpcStatus.SERIALIZATION_ERROR,
                        "cannot write the result of " + method + " with "
                                + call.serializer().name() + ": " + e.getMessage());
                return;
            }
            connection.writes.enqueueStream(message);
        }
        call.endStream(
                RpcStatus.OK,
                StreamCodec.encodeEnd(
                        connection.alloc(), call.id(), call.serializer().id()));
    }

    /** A credit from the caller (event loop). */
    void onCredit(Frame frame) {
        int messages;
        int bytes;
        try {
            messages = StreamCodec.creditMessages(frame.body());
            bytes = StreamCodec.creditBytes(frame.body());
        } catch (IllegalArgumentException e) {
            violated("a malformed credit: " + e.getMessage());
            return;
        }
        if (outbound != null) {
            outbound.grant(messages, bytes); // held until the implementation's publisher is subscribed
        }
    }

    /** One of the caller's messages (event loop); the frame is this stream's. */
    void onMessage(Frame frame) {
        if (inbound == null || !accepted) {
            frame.release();
            violated(
                    inbound == null
                            ? "a message to a stream that takes none"
                            : "a message before the stream was accepted (before its CREDIT)");
            return;
        }
        if (frame.isOverBudget()) {
            frame.release();
            call.answerError(
                    RpcStatus.SERVER_BUSY,
                    "server " + server.endpoint() + " holds its memory budget for requests in transit in other"
                            + " requests; a message of " + method + " was not read; the stream was ended");
            return;
        }
        if (!inbound.onMessage(frame)) {
            violated(
                    inbound.peerEnded()
                            ? "a message after its own STREAM_END"
                            : "a message beyond the credit it was granted");
        }
    }

    /** The caller's STREAM_END (event loop): its messages are over, or it failed. */
    void onEnd(Frame frame) {
        if (inbound == null) {
            return;
        }
        if (frame.status() == RpcStatus.OK.code()) {
            inbound.onEnd(null);
        } else {
            inbound.onEnd(new RpcException(
                    RpcStatus.CANCELLED,
                    call.description() + ": the caller's stream failed (" + RpcStatus.fromCode(frame.status()) + ")"));
        }
    }

    /** The caller sent what it may not: the stream ends, and the connection counts a strike. */
    private void violated(String what) {
        String why = "the caller sent " + what;
        call.answerError(RpcStatus.RESOURCE_EXHAUSTED, call.description() + ": " + why + "; the stream was ended");
        connection.strikes.malformed(why);
    }

    /** The call ended, however: what is left of both streams is dropped (any thread). */
    void ended(Throwable cause) {
        if (outbound != null) {
            outbound.cancel();
        }
        if (inbound != null) {
            inbound.fail(
                    cause != null
                            ? cause
                            : new RpcException(RpcStatus.CANCELLED, call.description() + ": the call ended"));
        }
    }

    /** Runs a delivery of the caller's messages on a call thread. */
    private void deliver(Runnable drain) {
        try {
            server.executor().execute(drain);
        } catch (RejectedExecutionException full) {
            // Not on the event loop, which every connection of it shares: the stream ends here,
            // as a call is refused when no thread is free, and what it holds is dropped at once.
            call.answerError(
                    RpcStatus.SERVER_BUSY,
                    call.description() + ": server " + server.endpoint()
                            + " had no call thread free to deliver the caller's messages; the stream was ended");
            throw full;
        }
    }

    /** The end frame of a failure: a failed response's body, in a STREAM_END. */
    ByteBuf errorEnd(RpcStatus status, String className, String message, String stack) {
        return ErrorCodec.encodeError(
                connection.alloc(),
                MessageType.STREAM_END,
                call.id(),
                call.serializer().id(),
                (byte) 0,
                status,
                className,
                message,
                stack,
                server.maxFrameLength());
    }

    // InboundStream.Peer

    @Override
    public void grant(int messages, int bytes) {
        connection.writes.enqueue(StreamCodec.encodeCredit(connection.alloc(), call.id(), messages, bytes));
    }

    @Override
    public void cancelled() {
        // The implementation read what it needed (a take(n), a first match): it may still answer,
        // so the call goes on; the caller is granted nothing more and stops once its credit is spent.
    }

    @Override
    public void subscriberThrew(Throwable thrown) {
        // The implementation's own failure, as if the method had thrown it.
        String message;
        try {
            message = thrown.getMessage();
        } catch (RuntimeException e) {
            message = null;
        }
        call.answerApplicationError(
                thrown.getClass().getName(),
                (message == null ? "" : message + " ") + "(thrown by the subscriber of the caller's stream of " + method
                        + ")",
                null,
                null);
    }

    @Override
    public void failed(RpcException why) {
        call.answerError(why.status(), why.getMessage());
    }

    @Override
    public Object decode(Frame message) throws Exception {
        String bad = message.decompress(server.compressors(), server.maxFrameLength());
        if (bad != null) {
            throw new RpcException(RpcStatus.SERIALIZATION_ERROR, call.description() + ": bad message body: " + bad);
        }
        return RpcCodec.readMessage(
                message.body(),
                call.serializer(),
                method.streamType(),
                method.genericStreamType(),
                call.deadlineNanos());
    }

    // OutboundStream.Sink

    @Override
    public ByteBuf encode(Object item) throws Exception {
        return StreamCodec.encodeMessage(
                connection.alloc(),
                call.id(),
                call.serializer(),
                call.compressor(),
                server.compressThreshold(),
                server.maxFrameLength(),
                item,
                method.resultType());
    }

    @Override
    public void write(ByteBuf frame) {
        connection.writes.enqueueStream(frame);
    }

    @Override
    public boolean hasRoom() {
        return connection.writes.hasStreamRoom();
    }

    @Override
    public void whenRoom(Runnable sender) {
        connection.writes.whenStreamRoom(sender);
    }

    @Override
    public void end(Throwable failure) {
        if (failure == null) {
            produced.complete(null);
        } else {
            produced.completeExceptionally(failure);
        }
    }
}
