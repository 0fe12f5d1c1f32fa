package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.Serializer;
import io.xrpc.server.ServerMethod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted request on the server, from the executor queue to its answer. It owns the request
 * frame until the arguments are read (or it is abandoned), and it is answered exactly once:
 * whichever of result, failure, deadline or shutdown comes first writes the answer and ends the
 * server's count of calls in flight.
 */
final class ServerCall implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ServerCall.class);

    private final NettyServerTransport server;
    private final ChannelHandlerContext ctx;
    private final WriteQueue writes;
    private final Serializer serializer;
    private final Compressor compressor;
    private final ServerMethod method;
    private final RpcCodec.RequestHead head;
    private final Endpoint peer;
    private final long deadline;
    private final long id;
    private final AtomicBoolean answered = new AtomicBoolean();
    private Frame frame;

    ServerCall(NettyServerTransport server, ChannelHandlerContext ctx, WriteQueue writes, Frame frame,
               Serializer serializer, ServerMethod method, RpcCodec.RequestHead head, Endpoint peer, long deadline) {
        this.server = server;
        this.ctx = ctx;
        this.writes = writes;
        this.frame = frame;
        this.id = frame.requestId();
        this.serializer = serializer;
        Compressor c = server.compressors().byId(frame.compressorId());
        this.compressor = c == null ? IdentityCompressor.INSTANCE : c;
        this.method = method;
        this.head = head;
        this.peer = peer;
        this.deadline = deadline;
    }

    @Override
    public void run() {
        try {
            if (System.nanoTime() - deadline >= 0) {
                releaseFrame();
                answerError(RpcStatus.DEADLINE_EXCEEDED, "deadline of " + method.descriptor()
                        + " passed while it waited for a thread on " + server.endpoint());
                return;
            }
            Object[] args;
            try {
                args = RpcCodec.readArguments(frame.body(), serializer, method.descriptor().parameterTypes());
            } catch (ClassNotAllowedException e) {
                answerError(RpcStatus.SERIALIZATION_ERROR, "request for " + method.descriptor() + " refused: "
                        + e.getMessage());
                return;
            } catch (Exception | StackOverflowError e) {
                answerError(RpcStatus.SERIALIZATION_ERROR, "cannot read the arguments of " + method.descriptor()
                        + " with " + serializer.name() + ": " + e);
                return;
            } finally {
                releaseFrame();
            }
            String bad = method.checkArguments(args);
            if (bad != null) {
                answerError(RpcStatus.SERIALIZATION_ERROR, bad);
                return;
            }
            Invocation inv = new Invocation(method.serviceKey(), method.descriptor(), args,
                    head.attachments().isEmpty() ? null : head.attachments(), peer, deadline);
            CompletableFuture<Object> result = server.dispatcher().dispatch(method, inv);
            if (result.isDone()) {
                result.whenComplete(this::complete); // runs now, on this thread
                return;
            }
            // An asynchronous result that never completes must not hold the call open forever.
            long left = deadline - System.nanoTime();
            ScheduledFuture<?> timer = ctx.executor().schedule(() -> answerError(RpcStatus.DEADLINE_EXCEEDED,
                    method.descriptor() + " did not complete before its deadline on " + server.endpoint()),
                    Math.max(0, left), TimeUnit.NANOSECONDS);
            result.whenComplete((v, t) -> {
                timer.cancel(false);
                complete(v, t);
            });
        } catch (Throwable t) {
            releaseFrame();
            log.error("Failed to serve {} from {}", method.descriptor(), peer, t);
            answerError(RpcStatus.INTERNAL, "server failed: " + t);
        }
    }

    /** Answers with the outcome; never throws (it runs inside {@code whenComplete}, which would swallow it). */
    private void complete(Object value, Throwable error) {
        try {
            if (error != null) {
                failed(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
                return;
            }
            ByteBuf out;
            try {
                out = RpcCodec.encodeResponse(ctx.alloc(), id, serializer, compressor, server.compressThreshold(),
                        server.maxFrameLength(), value);
            } catch (Exception | StackOverflowError e) {
                answerError(RpcStatus.SERIALIZATION_ERROR, "cannot write the result of " + method.descriptor()
                        + " with " + serializer.name() + ": " + e);
                return;
            }
            answer(out);
        } catch (Throwable t) {
            log.error("Failed to answer {} from {}", method.descriptor(), peer, t);
            answerError(RpcStatus.INTERNAL, "server failed to answer: " + t.getClass().getName());
        }
    }

    private void failed(Throwable cause) {
        if (cause instanceof RpcException r && r.status() != RpcStatus.APPLICATION_ERROR) {
            RpcStatus status = r.status();
            String message = r.getMessage();
            if (status.isSafeToRetry() || status == RpcStatus.DEADLINE_EXCEEDED
                    || status == RpcStatus.CONNECTION_CLOSED) {
                // The call ran and failed on a call of its own; passing that status on would tell
                // our caller it is safe to run this call again somewhere else.
                message = method.descriptor() + " failed on a downstream call: " + status + ": " + message;
                status = RpcStatus.INTERNAL;
            }
            answerError(status, message);
            return;
        }
        String text;
        String className = cause.getClass().getName();
        String message;
        try {
            message = cause.getMessage();
            StringWriter w = new StringWriter(1024);
            cause.printStackTrace(new PrintWriter(w));
            text = w.toString();
        } catch (RuntimeException e) {
            message = "(its getMessage() threw " + e.getClass().getName() + ")";
            text = null;
        }
        answerErrorFull(RpcStatus.APPLICATION_ERROR, message, className, text);
    }

    void answerError(RpcStatus status, String message) {
        answerErrorFull(status, message, null, null);
    }

    private void answerErrorFull(RpcStatus status, String message, String remoteClass, String stack) {
        if (answered.compareAndSet(false, true)) {
            try {
                writes.enqueue(RpcCodec.encodeError(ctx.alloc(), id, serializer.id(), compressor.id(), status,
                        remoteClass, message, stack));
            } finally {
                server.callFinished();
            }
        }
    }

    private void answer(ByteBuf out) {
        if (answered.compareAndSet(false, true)) {
            try {
                writes.enqueue(out);
            } finally {
                server.callFinished();
            }
        } else {
            out.release();
        }
    }

    /** The executor would not take this call (full); it never runs. */
    void refuse(RpcStatus status, String message) {
        releaseFrame();
        answerError(status, message);
    }

    /** The executor dropped this call without running it (shutdown). */
    void abandon() {
        refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " shut down before running "
                + method.descriptor());
    }

    private void releaseFrame() {
        Frame f = frame;
        if (f != null) {
            frame = null;
            f.release();
        }
    }
}
