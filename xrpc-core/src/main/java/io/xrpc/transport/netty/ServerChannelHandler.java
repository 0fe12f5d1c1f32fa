package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.Serializer;
import io.xrpc.server.ServerMethod;
import java.net.InetSocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the requests of one connection. Not sharable: it owns the connection's write queue.
 *
 * <p>On the event loop it only routes: it finds the method (so an unknown service or method, an
 * expired budget or a full executor is answered at once, without deserializing anything) and hands
 * a {@link ServerCall} to the business executor, where the arguments are read, the call runs and
 * the answer is encoded and queued. Any failure of one request is answered on that request; only
 * a framing error closes the connection.
 */
final class ServerChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ServerChannelHandler.class);

    private final NettyServerTransport server;
    private WriteQueue writes;
    private Endpoint peer;

    ServerChannelHandler(NettyServerTransport server) {
        this.server = server;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        writes = new WriteQueue(ctx.channel());
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            peer = new Endpoint(a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString(),
                    Math.max(1, a.getPort()));
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        switch (frame.type()) {
            case REQUEST -> onRequest(ctx, frame);
            case HEARTBEAT_PING -> {
                frame.release();
                writes.enqueue(RpcCodec.encodeControl(ctx.alloc(), MessageType.HEARTBEAT_PONG));
            }
            default -> frame.release();
        }
    }

    private void onRequest(ChannelHandlerContext ctx, Frame frame) {
        long received = System.nanoTime();
        if (frame.bodyError() != null) {
            reject(ctx, frame, RpcStatus.SERIALIZATION_ERROR, "bad request body: " + frame.bodyError());
            return;
        }
        Serializer serializer = server.serializers().byId(frame.serializerId());
        if (serializer == null) {
            reject(ctx, frame, RpcStatus.SERIALIZATION_ERROR, "unknown serializer id " + frame.serializerId());
            return;
        }
        RpcCodec.RequestHead head;
        try {
            head = RpcCodec.readRequestHead(frame.body());
        } catch (RuntimeException e) {
            reject(ctx, frame, RpcStatus.SERIALIZATION_ERROR, "malformed request head: " + e);
            return;
        }
        ServerMethod method = server.dispatcher().find(head.serviceKey(), head.signature());
        if (method == null) {
            boolean known = server.dispatcher().hasService(head.serviceKey());
            reject(ctx, frame, known ? RpcStatus.METHOD_NOT_FOUND : RpcStatus.SERVICE_NOT_FOUND, known
                    ? "service " + head.serviceKey() + " has no method " + head.signature()
                    : "no service " + head.serviceKey() + " is exported at " + server.endpoint());
            return;
        }
        int budget = frame.budgetMillis();
        if (budget <= 0) {
            reject(ctx, frame, RpcStatus.DEADLINE_EXCEEDED, "deadline of " + method.descriptor()
                    + " passed before it reached " + server.endpoint());
            return;
        }
        // Counted before the draining check, so close() cannot see zero calls while one is accepted.
        server.callStarted();
        if (server.isDraining()) {
            server.callFinished();
            reject(ctx, frame, RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            return;
        }
        ServerCall call = new ServerCall(server, ctx, writes, frame, serializer, method, head, peer,
                received + TimeUnit.MILLISECONDS.toNanos(budget));
        try {
            server.executor().execute(call);
        } catch (RejectedExecutionException e) {
            call.refuse(RpcStatus.SERVER_BUSY, "server " + server.endpoint() + " is busy: all "
                    + server.executorThreads() + " threads and " + server.executorQueue() + " queue slots in use");
        }
    }

    /** Answers a request that never became a call. */
    private void reject(ChannelHandlerContext ctx, Frame frame, RpcStatus status, String message) {
        frame.release();
        writes.enqueue(RpcCodec.encodeError(ctx.alloc(), frame.requestId(), frame.serializerId(),
                frame.compressorId(), status, null, message, null));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            log.warn("Closing connection from {}: {}", peer, cause.getCause() != null ? cause.getCause().getMessage()
                    : cause.getMessage());
        } else {
            log.warn("Closing connection from {} after an error", peer, cause);
        }
        ctx.close();
    }
}
