package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.Serializer;
import io.xrpc.server.ServerMethod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the requests of one connection. Not sharable: it owns the connection's write queue.
 *
 * <p>On the event loop it only routes: it finds the method (so an unknown service or method, an
 * expired budget or a full executor is answered at once, without deserializing anything) and hands
 * the frame to the business executor. There the arguments are read, the call runs, and the
 * response is encoded and queued. Any failure of one request is answered on that request; only a
 * framing error closes the connection.
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
        long id = frame.requestId();
        byte ser = frame.serializerId();
        byte comp = frame.compressorId();
        if (server.isDraining()) {
            reject(ctx, frame, RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            return;
        }
        if (frame.bodyError() != null) {
            reject(ctx, frame, RpcStatus.SERIALIZATION_ERROR, "bad request body: " + frame.bodyError());
            return;
        }
        Serializer serializer = server.serializers().byId(ser);
        if (serializer == null) {
            reject(ctx, frame, RpcStatus.SERIALIZATION_ERROR, "unknown serializer id " + ser);
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
        long deadline = received + TimeUnit.MILLISECONDS.toNanos(budget);
        server.callStarted();
        try {
            server.executor().execute(() -> run(ctx, frame, serializer, method, head, deadline));
        } catch (RejectedExecutionException e) {
            server.callFinished();
            reject(ctx, frame, RpcStatus.SERVER_BUSY, "server " + server.endpoint() + " is busy: all "
                    + server.executorThreads() + " threads and " + server.executorQueue() + " queue slots in use");
        }
    }

    /** Runs on the business executor; owns the frame until it releases it. */
    private void run(ChannelHandlerContext ctx, Frame frame, Serializer serializer, ServerMethod method,
                     RpcCodec.RequestHead head, long deadline) {
        long id = frame.requestId();
        Compressor compressor = compressorOf(frame.compressorId());
        try {
            if (System.nanoTime() - deadline >= 0) {
                frame.release();
                respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.DEADLINE_EXCEEDED,
                        "deadline of " + method.descriptor() + " passed while it waited for a thread on "
                                + server.endpoint(), null, null);
                return;
            }
            Object[] args;
            try {
                args = RpcCodec.readArguments(frame.body(), serializer, method.descriptor().parameterTypes());
            } catch (ClassNotAllowedException e) {
                respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.SERIALIZATION_ERROR,
                        "request for " + method.descriptor() + " refused: " + e.getMessage(), null, null);
                return;
            } catch (Exception e) {
                respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.SERIALIZATION_ERROR,
                        "cannot read the arguments of " + method.descriptor() + " with " + serializer.name() + ": " + e,
                        null, null);
                return;
            } finally {
                frame.release();
            }
            String bad = method.checkArguments(args);
            if (bad != null) {
                respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.SERIALIZATION_ERROR, bad, null, null);
                return;
            }
            Invocation inv = new Invocation(method.serviceKey(), method.descriptor(), args,
                    head.attachments().isEmpty() ? null : head.attachments(), peer, deadline);
            CompletableFuture<Object> result = server.dispatcher().dispatch(method, inv);
            if (result.isDone()) {
                complete(ctx, id, serializer, compressor, method, result);
            } else {
                result.whenComplete((v, t) -> complete(ctx, id, serializer, compressor, method, result));
            }
        } catch (Throwable t) {
            log.error("Failed to serve {} from {}", method.descriptor(), peer, t);
            respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.INTERNAL,
                    "server failed: " + t, null, null);
        }
    }

    private void complete(ChannelHandlerContext ctx, long id, Serializer serializer, Compressor compressor,
                          ServerMethod method, CompletableFuture<Object> result) {
        Object value;
        try {
            value = result.join();
        } catch (Throwable t) {
            Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                    ? t.getCause() : t;
            if (cause instanceof RpcException r && r.status() != RpcStatus.APPLICATION_ERROR) {
                respondError(ctx, id, serializer.id(), compressor.id(), r.status(), r.getMessage(), null, null);
            } else {
                respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.APPLICATION_ERROR,
                        cause.getMessage(), cause.getClass().getName(), stackTrace(cause));
            }
            return;
        }
        ByteBuf out;
        try {
            out = RpcCodec.encodeResponse(ctx.alloc(), id, serializer, compressor, server.compressThreshold(), value);
        } catch (Exception | StackOverflowError e) {
            respondError(ctx, id, serializer.id(), compressor.id(), RpcStatus.SERIALIZATION_ERROR,
                    "cannot write the result of " + method.descriptor() + " with " + serializer.name() + ": " + e,
                    null, null);
            return;
        }
        writes.enqueue(out);
        server.callFinished();
    }

    private void respondError(ChannelHandlerContext ctx, long id, byte ser, byte comp, RpcStatus status,
                              String message, String remoteClass, String stack) {
        writes.enqueue(RpcCodec.encodeError(ctx.alloc(), id, ser, comp, status, remoteClass, message, stack));
        server.callFinished();
    }

    /** Answers a request that never reached the executor. */
    private void reject(ChannelHandlerContext ctx, Frame frame, RpcStatus status, String message) {
        frame.release();
        writes.enqueue(RpcCodec.encodeError(ctx.alloc(), frame.requestId(), frame.serializerId(),
                frame.compressorId(), status, null, message, null));
    }

    private Compressor compressorOf(byte id) {
        Compressor c = server.compressors().byId(id);
        return c == null ? IdentityCompressor.INSTANCE : c;
    }

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter(1024);
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
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
