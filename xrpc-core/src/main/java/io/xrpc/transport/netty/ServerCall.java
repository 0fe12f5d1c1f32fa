package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.RemoteExceptions;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.internal.Texts;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.RequestHandler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request on the server, from the frame to its answer. It owns the request frame until the
 * arguments are read (or it is refused), and it is answered exactly once: whichever of result,
 * failure, deadline or shutdown comes first writes the answer and ends the server's count of
 * calls in flight.
 *
 * <p>Its budget is the one the request carried less the time the request waited before the
 * server read it (see {@link LinkDelay}). The budget is checked when the request is read, when a
 * thread takes it, and again after its arguments are read: a call whose deadline passed is
 * answered {@code DEADLINE_EXCEEDED} and never runs.
 */
final class ServerCall implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ServerCall.class);
    /** Longest piece of a peer's service key or signature quoted back in an error. */
    private static final int MAX_QUOTE = 200;
    /** Longest explanation of a refused payload (it may quote the payload) sent back. */
    private static final int MAX_DETAIL = 1000;

    private final NettyServerTransport server;
    private final ServerChannelHandler connection;
    private final long id;
    private final byte serializerId;
    private final byte compressorId;
    private final long received;
    private final int waitedMillis;
    private final AtomicBoolean answered = new AtomicBoolean();
    private Frame frame;
    private long deadline;
    private Serializer serializer;
    private Compressor compressor = IdentityCompressor.INSTANCE;
    private RequestHandler.Route method;
    private RpcCodec.RequestHead head;
    private boolean dispatched;
    private long reserved;
    private Object result;
    /** Set once dispatched: told the status the call was answered with. */
    private volatile Invocation invocation;

    ServerCall(NettyServerTransport server, ServerChannelHandler connection, Frame frame, long received,
               int waitedMillis) {
        this.server = server;
        this.connection = connection;
        this.frame = frame;
        this.id = frame.requestId();
        this.serializerId = frame.serializerId();
        this.compressorId = frame.compressorId();
        this.received = received;
        this.waitedMillis = waitedMillis;
        server.callStarted();
    }

    /**
     * The checks that need no deserializing, on the event loop: shutting down, budget, and for an
     * uncompressed body the route. Returns false when the request is answered already.
     */
    boolean routeOnEventLoop() {
        if (server.isDraining()) {
            refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            return false;
        }
        int budget = frame.budgetMillis();
        if (budget <= 0) {
            refuse(RpcStatus.DEADLINE_EXCEEDED, "deadline of request " + id + " passed before it reached "
                    + server.endpoint());
            return false;
        }
        if (waitedMillis >= budget) {
            refuse(RpcStatus.DEADLINE_EXCEEDED, "request " + id + " waited " + waitedMillis + " ms before "
                    + server.endpoint() + " read it, longer than its budget of " + budget + " ms; not run");
            return false;
        }
        deadline = received + TimeUnit.MILLISECONDS.toNanos(budget - waitedMillis);
        serializer = server.serializers().byId(serializerId);
        if (serializer == null) {
            refuse(RpcStatus.SERIALIZATION_ERROR, "unknown serializer id " + serializerId);
            return false;
        }
        if (frame.isCompressed()) {
            return true; // routed on the call thread, after decompressing
        }
        return route();
    }

    /** Reads the request head and finds the method; answers and returns false when it cannot. */
    private boolean route() {
        int bodyLength = frame.body().readableBytes();
        try {
            head = RpcCodec.readRequestHead(frame.body());
        } catch (RuntimeException e) {
            refuse(RpcStatus.SERIALIZATION_ERROR, "malformed request head in a body of " + bodyLength + " bytes");
            return false;
        }
        method = server.dispatcher().find(head.serviceKey(), head.signature());
        if (method == null) {
            boolean known = server.dispatcher().hasService(head.serviceKey());
            refuse(known ? RpcStatus.METHOD_NOT_FOUND : RpcStatus.SERVICE_NOT_FOUND, known
                    ? "service " + Texts.cut(head.serviceKey(), MAX_QUOTE) + " has no method "
                    + Texts.cut(head.signature(), MAX_QUOTE)
                    : "no service " + Texts.cut(head.serviceKey(), MAX_QUOTE) + " is exported at " + server.endpoint());
            return false;
        }
        if (!method.accepts(serializer.name())) {
            refuse(RpcStatus.SERIALIZATION_ERROR, method.serviceKey() + " accepts only the serializers "
                    + method.acceptedSerializers() + " (the request used " + serializer.name() + ")");
            return false;
        }
        if (frame.compressorId() != IdentityCompressor.ID) {
            Compressor c = server.compressors().byId(compressorId);
            compressor = c == null ? IdentityCompressor.INSTANCE : c;
        }
        return true;
    }

    /**
     * The usual response size of the method; for a compressed request, whose method is known only
     * once the body is decompressed on the call thread, the largest usual size of any method of
     * the server (a hostile peer could otherwise mark its requests compressed to pass admission).
     */
    long expectedResponseBytes() {
        return method != null ? method.expectedResponseBytes() : server.dispatcher().largestExpectedResponse();
    }

    /** The connection gave this call to the executor, expecting a response of about {@code bytes}. */
    void dispatched(long bytes) {
        dispatched = true;
        reserved = bytes;
    }

    @Override
    public void run() {
        try {
            if (method == null) {
                String error = frame.decompress(server.compressors(), server.maxFrameLength());
                if (error != null) {
                    releaseFrame();
                    answerError(RpcStatus.SERIALIZATION_ERROR, "bad request body: " + error);
                    return;
                }
                if (!route()) {
                    return;
                }
            }
            if (expired()) {
                releaseFrame();
                answerError(RpcStatus.DEADLINE_EXCEEDED, "deadline of " + method.descriptor()
                        + " passed while it waited for a thread on " + server.endpoint() + "; not run");
                return;
            }
            String refusal = server.dispatcher().authenticate(method, head.attachments(), connection.peer);
            if (refusal != null) { // before a byte of the arguments is read
                releaseFrame();
                answerError(RpcStatus.UNAUTHENTICATED, method.descriptor() + " refused: "
                        + Texts.cut(refusal, MAX_DETAIL));
                return;
            }
            Object[] args;
            try {
                args = RpcCodec.readArguments(frame.body(), serializer, method.descriptor().parameterTypes(), deadline);
            } catch (ClassNotAllowedException e) {
                answerError(RpcStatus.SERIALIZATION_ERROR, "request for " + method.descriptor() + " refused: "
                        + Texts.cut(e.getMessage(), MAX_DETAIL));
                return;
            } catch (ReadDeadlineException e) {
                answerReadTooLong();
                return;
            } catch (Exception | StackOverflowError e) {
                answerError(RpcStatus.SERIALIZATION_ERROR, "cannot read the arguments of " + method.descriptor()
                        + " with " + serializer.name() + ": " + Texts.cut(e.getMessage(), MAX_DETAIL));
                return;
            } finally {
                releaseFrame();
            }
            if (expired()) { // a reader need not look at the deadline
                answerReadTooLong();
                return;
            }
            String bad = method.checkArguments(args);
            if (bad != null) {
                answerError(RpcStatus.SERIALIZATION_ERROR, bad);
                return;
            }
            Invocation inv = new Invocation(method.serviceKey(), method.descriptor(), args,
                    head.attachments().isEmpty() ? null : head.attachments(), connection.peer, deadline);
            invocation = inv;
            CompletableFuture<Object> f = server.dispatcher().dispatch(method, inv);
            if (f.isDone()) {
                f.whenComplete(this::complete); // runs now, on this thread
                return;
            }
            // An asynchronous result that never completes must not hold the call open forever.
            ScheduledFuture<?> timer = connection.schedule(() -> answerError(RpcStatus.DEADLINE_EXCEEDED,
                    method.descriptor() + " did not complete before its deadline on " + server.endpoint()),
                    Math.max(0, deadline - System.nanoTime()));
            f.whenComplete((v, t) -> {
                timer.cancel(false);
                complete(v, t);
            });
        } catch (Throwable t) {
            releaseFrame();
            log.error("Failed to serve {} from {}", method != null ? method.descriptor() : "request " + id,
                    connection.peer, t);
            answerError(RpcStatus.INTERNAL, "server failed: " + t);
        }
    }

    private boolean expired() {
        return System.nanoTime() - deadline >= 0;
    }

    /** Answers with the outcome; never throws (it runs inside {@code whenComplete}, which would swallow it). */
    private void complete(Object value, Throwable error) {
        try {
            if (error != null) {
                failed(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
                return;
            }
            result = value;
            connection.deliver(this);
        } catch (Throwable t) {
            log.error("Failed to answer {} from {}", method.descriptor(), connection.peer, t);
            answerError(RpcStatus.INTERNAL, "server failed to answer: " + t.getClass().getName());
        }
    }

    /** The connection is gone: the call is done, its result is not encoded. */
    void dropResult() {
        result = null;
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(RpcStatus.CONNECTION_CLOSED);
            finished();
        }
    }

    /** Encodes the result and queues it; called by the connection once there is room for it. */
    void encodeAndAnswer() {
        Object value = result;
        result = null;
        if (answered.get()) {
            return; // the deadline answered first
        }
        ByteBuf out;
        try {
            out = RpcCodec.encodeResponse(connection.alloc(), id, serializer, compressor,
                    server.compressThreshold(), server.maxFrameLength(), value);
        } catch (Exception | StackOverflowError e) {
            String problem = "cannot write the result of " + method.descriptor() + " with " + serializer.name()
                    + ": " + e.getMessage();
            if (method.firstResultFailure()) {
                log.warn("{} (the method ran; its callers get SERIALIZATION_ERROR; logged once per method)", problem);
            }
            answerError(RpcStatus.SERIALIZATION_ERROR, problem);
            return;
        } catch (Throwable t) {
            log.error("Failed to answer {} from {}", method.descriptor(), connection.peer, t);
            answerError(RpcStatus.INTERNAL, "server failed to answer: " + t.getClass().getName());
            return;
        }
        server.dispatcher().recordResponse(method, out.readableBytes());
        answer(out);
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
        Class<?>[] declared = method.descriptor().exceptionTypes();
        Object carried = null;
        if (declared.length > 0 && RemoteExceptions.isDeclared(cause, declared)) {
            try {
                carried = RemoteExceptions.describe(cause, declared);
            } catch (RuntimeException | StackOverflowError e) {
                // its getMessage() or getStackTrace() threw: the text answer says what it could
            }
        }
        if (carried == null) {
            answerErrorFull(RpcStatus.APPLICATION_ERROR, message, className, text);
            return;
        }
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(RpcStatus.APPLICATION_ERROR);
            try {
                connection.writes.enqueue(RpcCodec.encodeApplicationError(connection.alloc(), id, serializer,
                        compressorId, className, message, text, server.maxFrameLength(), carried));
            } finally {
                finished();
            }
        }
    }

    void answerError(RpcStatus status, String message) {
        answerErrorFull(status, message, null, null);
    }

    private void answerErrorFull(RpcStatus status, String message, String remoteClass, String stack) {
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(status);
            try {
                connection.writes.enqueue(RpcCodec.encodeError(connection.alloc(), id, serializerId,
                        compressorId, status, remoteClass, message, stack, server.maxFrameLength()));
            } finally {
                finished();
            }
        }
    }

    private void answer(ByteBuf out) {
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(RpcStatus.OK);
            try {
                connection.writes.enqueue(out);
            } finally {
                finished();
            }
        } else {
            out.release();
        }
    }

    private void finished() {
        server.callFinished();
        if (dispatched) {
            connection.callDone(reserved);
        }
    }

    /**
     * Tells the invocation's listeners the status the caller is about to receive; before the
     * answer is queued, so that what they record is there by the time the caller has its answer.
     */
    private void notifyAnswered(RpcStatus status) {
        Invocation inv = invocation;
        if (inv != null) {
            try {
                inv.answered(status);
            } catch (RuntimeException e) {
                log.warn("A listener of {} threw", method.descriptor(), e);
            }
        }
    }

    private void answerReadTooLong() {
        answerError(RpcStatus.DEADLINE_EXCEEDED, "deadline of " + method.descriptor()
                + " passed while its arguments were read on " + server.endpoint() + "; not run");
    }

    /** Answers a request that will not run (full executor, bad head, shutdown). */
    void refuse(RpcStatus status, String message) {
        releaseFrame();
        answerError(status, message);
    }

    /** The server or the connection dropped this call without running it. */
    void abandon() {
        refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " shut down before running "
                + (method != null ? method.descriptor() : "request " + id));
    }

    private void releaseFrame() {
        Frame f = frame;
        if (f != null) {
            frame = null;
            f.release();
        }
    }
}
