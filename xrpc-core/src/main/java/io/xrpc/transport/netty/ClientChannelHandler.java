package io.xrpc.transport.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.RemoteExceptions;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the calls of one connection as their responses arrive. Responses are decoded here,
 * on the event loop, so the frame is released where it was read; whatever decoding a response
 * throws fails that one call at once. Not sharable.
 */
final class ClientChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientChannelHandler.class);

    final ClientConnection connection;
    private final NettyClientTransport transport;
    private volatile String closeReason = "closed";

    /** The call of the last stream frame read (event loop); its frames usually come in runs. */
    private ClientCall lastStream;

    ClientChannelHandler(ClientConnection connection, NettyClientTransport transport) {
        this.connection = connection;
        this.transport = transport;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        boolean taken = false; // a stream's message is the stream's to release
        try {
            if (frame.type() == MessageType.RESPONSE) {
                onResponse(frame);
            } else if (frame.type() == MessageType.STREAM_MESSAGE
                    || frame.type() == MessageType.STREAM_END
                    || frame.type() == MessageType.CREDIT) {
                taken = onStream(frame);
            } else if (frame.type() == MessageType.GOAWAY) {
                // A refusal vouches that nothing sent on the connection ran; believed only before
                // any answer came, which is when a server sends one.
                if (frame.status() == RpcStatus.UNAVAILABLE.code() && !connection.answeredAny) {
                    String why;
                    try {
                        why = ErrorCodec.readError(frame.body()).message();
                    } catch (RuntimeException e) {
                        why = "refused";
                    }
                    transport.refused(connection, why);
                } else {
                    if (frame.status() == RpcStatus.UNAUTHENTICATED.code()) {
                        try {
                            log.warn("{}", ErrorCodec.readError(frame.body()).message());
                        } catch (RuntimeException e) {
                            log.warn("{} closed the connection: it carried no authenticated call", connection.endpoint);
                        }
                    }
                    connection.goAway();
                }
            } else if (frame.type() == MessageType.HEARTBEAT_PING) {
                connection.writes.enqueue(RpcCodec.encodeControl(ctx.alloc(), MessageType.HEARTBEAT_PONG));
            }
        } finally {
            if (!taken) {
                frame.release();
            }
        }
    }

    /**
     * A frame of a stream call: a message, the provider's end, or a credit. Returns whether the
     * stream took the frame (a message), which it then releases.
     */
    private boolean onStream(Frame frame) {
        connection.answeredAny = true;
        long id = frame.requestId();
        ClientCall call = lastStream;
        if (call == null || call.id != id || call.isDone()) {
            // A stream's frames come in runs: the last one's call is found without a lookup (a box).
            call = connection.pending.get(id);
            lastStream = call;
        }
        ClientStream stream = call == null ? null : call.stream;
        if (stream == null) {
            return false; // it ended already, or this is no stream call of this connection: nothing to do
        }
        switch (frame.type()) {
            case STREAM_MESSAGE -> {
                stream.onMessage(frame);
                return true;
            }
            case STREAM_END -> {
                stream.onEnd(frame);
                lastStream = null; // the call is over: not kept for a frame that will not come
            }
            default -> stream.onCredit(frame);
        }
        return false;
    }

    private void onResponse(Frame frame) {
        connection.answeredAny = true;
        ClientCall call = connection.pending.remove(frame.requestId());
        if (call == null) {
            return; // it ended already (deadline passed); the late answer has no one to go to
        }
        if (call.stream != null && frame.status() == RpcStatus.OK.code()) {
            // A provider that streams accepts a stream call with a CREDIT and ends it with STREAM_END;
            // one answer with a value is a provider that treated it as an ordinary call.
            connection.pending.put(call.id, call); // fail() removes it as every end does
            call.answered(null);
            call.fail(new RpcException(
                    RpcStatus.UNAVAILABLE,
                    call.description + ": " + call.endpoint + " answered this stream call as a call of one answer:"
                            + " it does not stream this method (an XRpc provider from before streams? upgrade"
                            + " providers before consumers); not run as a stream"));
            return;
        }
        try {
            String bodyError = frame.decompress(transport.compressors(), transport.maxFrameLength());
            if (bodyError != null) {
                call.answered(null); // alive; the body is the problem
                call.fail(new RpcException(
                        RpcStatus.SERIALIZATION_ERROR,
                        call.description + ": bad response body from " + call.endpoint + ": " + bodyError));
                return;
            }
            RpcStatus status = RpcStatus.fromCode(frame.status());
            if (status == RpcStatus.OK) {
                Object value = RpcCodec.readResult(
                        frame.body(),
                        call.serializer,
                        call.target.resultType(),
                        call.target.genericResultType(),
                        call.deadlineNanos);
                call.answered(null); // once: a result that cannot be read is told below
                call.succeed(value);
                return;
            }
            ErrorCodec.RemoteError e = ErrorCodec.readError(frame.body());
            if (status == RpcStatus.APPLICATION_ERROR) {
                // A provider sends an exception's carried form only for one the method declares.
                boolean declaredByMethod = frame.body().isReadable();
                String stack = e.stackTrace();
                Throwable declared = null;
                // Read only for a method that declares exceptions, and only as much as an honest
                // provider sends (the whole error answer fits 16 KiB): a peer cannot make an
                // error cost more than that.
                if (call.target.declaredExceptions() != null
                        && frame.body().isReadable()
                        && frame.body().readableBytes() <= ErrorCodec.MAX_ERROR_BODY) {
                    ExceptionValue carried;
                    try {
                        carried = ErrorCodec.readCarriedError(frame.body(), call.serializer, call.deadlineNanos);
                    } catch (IOException | RuntimeException bad) {
                        carried = null; // what was thrown is still the text above; say why it is only that
                        stack = RemoteExceptions.notCarried(
                                        "it could not be read with " + call.serializer.name() + ": " + bad)
                                + (stack == null ? "" : stack);
                    }
                    if (carried != null) {
                        declared =
                                call.target.declaredExceptions().rebuild(carried, call.serializer, call.deadlineNanos);
                        if (stack == null || stack.isEmpty()) {
                            stack = RemoteExceptions.stackText(carried);
                        }
                    }
                }
                RpcException thrown = new RpcException(
                        call.description + " on " + call.endpoint + " threw " + e.className()
                                + (e.message() != null ? ": " + e.message() : ""),
                        e.className(),
                        e.message(),
                        stack,
                        declared);
                if (declaredByMethod) {
                    call.answered(null); // the method's own answer
                    call.failWithAnswer(thrown);
                } else {
                    call.answered(e.className() + " thrown by " + call.description);
                    call.fail(thrown);
                }
            } else {
                boolean providerFault = status == RpcStatus.SERVER_BUSY || status == RpcStatus.INTERNAL;
                call.answered(providerFault ? status + " for " + call.description : null);
                call.fail(new RpcException(
                        status, call.description + ": " + call.endpoint + " answered " + status + ": " + e.message()));
            }
        } catch (ReadDeadlineException t) {
            call.answered(null);
            call.fail(new RpcException(
                    RpcStatus.DEADLINE_EXCEEDED,
                    call.description + " to " + call.endpoint + " timed out after " + call.timedOutAfter()
                            + " while its response was read",
                    t));
        } catch (Throwable t) {
            // Any failure to read a response, an Error included, ends that call now and no other.
            call.answered(null);
            call.fail(new RpcException(
                    RpcStatus.SERIALIZATION_ERROR,
                    call.description + ": cannot read the response from " + call.endpoint + " with "
                            + call.serializer.name() + ": " + t.getMessage(),
                    t));
        }
    }

    /** Whatever this read brought (an answer, a pong), the provider was heard from: once per read, not per frame. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        connection.pool.heardNanos = System.nanoTime();
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        connection.writes.resume();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connection.writes.resume(); // fails what still waits to be written
        connection.failAll(closeReason);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String refusal = NettyTls.certificateRefusal(ctx, cause);
        if (refusal != null && !connection.answeredAny) {
            // With TLS 1.3 a client learns that the server refused its certificate only after its
            // own handshake finished, from the server's alert (encrypted, so not forgeable on the
            // path): the server read nothing, so nothing sent here ran.
            transport.refused(
                    connection,
                    "TLS refused by " + connection.endpoint + ": " + refusal
                            + " (a server that requires a client certificate refuses a missing or untrusted one)");
            ctx.close();
            return;
        }
        if (cause instanceof DecoderException) {
            closeReason = "closed on a bad frame ("
                    + (cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage()) + ")";
        } else {
            closeReason = "failed (" + cause + ")";
        }
        log.warn("Closing connection to {}: {}", connection.endpoint, closeReason);
        ctx.close();
    }
}
