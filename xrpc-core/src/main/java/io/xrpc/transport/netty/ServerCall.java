package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.Invocations;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.Routes;
import io.xrpc.transport.ServerExchange;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
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
final class ServerCall implements Runnable, ServerExchange {
    private static final Logger log = LoggerFactory.getLogger(ServerCall.class);
    /** Largest request body read on the event loop for a NonBlocking method; larger ones go to a call thread. */
    static final int DIRECT_MAX_BODY = 64 * 1024;

    private final NettyServerTransport server;
    private final ServerChannelHandler connection;
    private final long id;
    private final byte serializerId;
    private final byte compressorId;
    private final AtomicBoolean answered = new AtomicBoolean();
    /** Set when the client cancelled it: not run if not started, and never answered. */
    private volatile boolean cancelled;
    /** Listed in its connection's calls in flight, which a CANCEL looks up. */
    private boolean tracked;
    /** Its slot in the method's adaptive limit, or null. */
    private volatile LimitSlot slot;
    /** Set when a thread took it: only calls that ran are samples of the method's latency. */
    private volatile boolean started;

    private Frame frame;
    private final long deadline;
    private final Serializer serializer;
    private final Compressor compressor;
    private final Routes.Route method;
    /** What the transport learned of {@link #method} so far. */
    private final RouteStats stats;

    private final RpcCodec.RequestHead head;
    /** The stream of a stream call; null for a call of one answer. */
    final ServerStream stream;

    private boolean dispatched;
    private long reserved;
    private Object result;
    /** Set once dispatched: told the status the call was answered with. */
    private volatile Invocation invocation;
    /** The status the call was answered with, once it was. */
    private volatile RpcStatus answeredWith;
    /** The request body's bytes as received (compressed, when it was). */
    private final int requestBytes;
    /**
     * Whether reading it may cost much (a compressed body, or one over
     * {@link Admission#CHEAP_BODY}): counted against its connection's expensive reads
     * from dispatch until its body is released.
     */
    final boolean expensiveRead;

    /** A routed request ({@link RequestRouter} found its method); it owns {@code frame} from here. */
    ServerCall(
            NettyServerTransport server,
            ServerChannelHandler connection,
            Frame frame,
            int requestBytes,
            long deadline,
            Serializer serializer,
            Compressor compressor,
            RpcCodec.RequestHead head,
            Routes.Route method,
            RouteStats stats) {
        this.server = server;
        this.connection = connection;
        this.frame = frame;
        this.id = frame.requestId();
        this.serializerId = frame.serializerId();
        this.compressorId = frame.compressorId();
        this.requestBytes = requestBytes;
        this.expensiveRead = frame.isCompressed() || requestBytes > Admission.CHEAP_BODY;
        this.deadline = deadline;
        this.serializer = serializer;
        this.compressor = compressor;
        this.head = head;
        this.method = method;
        this.stats = stats;
        this.stream =
                method.descriptor().isStream() ? new ServerStream(this, connection, server, method.descriptor()) : null;
        server.callStarted();
    }

    /** The usual response size of the method. */
    long expectedResponseBytes() {
        return stream != null ? 0 : stats.responseSize.get(); // a stream's output is bounded by its caller's credit
    }

    /** What the transport learned of the method so far. */
    RouteStats stats() {
        return stats;
    }

    /**
     * Whether it runs on the event loop: its method does not block, and its body is plain and small
     * enough that reading it (however hostile) cannot hold the loop for long.
     */
    boolean runsOnEventLoop() {
        Frame f = frame;
        return method.direct() && f != null && !f.isCompressed() && f.body().readableBytes() <= DIRECT_MAX_BODY;
    }

    /** The connection gave this call to the executor, expecting a response of about {@code bytes}. */
    void dispatched(long bytes) {
        dispatched = true;
        reserved = bytes;
    }

    /** Whether the adaptive limit is taken only once the authenticator has admitted the call. */
    private boolean limitOnceAuthenticated;

    /** Takes a slot in the method's adaptive limit; returns why the call is refused when there is none, else null. */
    String takeLimit() {
        AdaptiveLimit l = stats.adaptiveLimit(server.executorThreads() + server.executorQueue());
        LimitSlot s = LimitSlot.take(l);
        if (s == null) {
            return "server " + server.endpoint() + " is at the adaptive concurrency limit of " + l.limit()
                    + " calls of " + method.descriptor() + " (their latency rose above its unloaded value); not run";
        }
        slot = s;
        return null;
    }

    /** The adaptive limit is taken by {@link #admit()}, after the authenticator (event loop, before it runs). */
    void limitOnceAuthenticated() {
        limitOnceAuthenticated = true;
    }

    @Override
    public String admit() {
        return limitOnceAuthenticated ? takeLimit() : null;
    }

    /** Listed in the connection's calls in flight (event loop, before it can run). */
    void tracked() {
        tracked = true;
        connection.inFlight.put(id, this);
    }

    /**
     * The client cancelled the request. If no thread has taken it yet it will not run; if it runs,
     * it runs to its end (the thread is not interrupted: user code may not expect it), and its
     * answer is neither encoded nor sent. The client has forgotten the request either way.
     */
    void cancel() {
        cancelled = true;
        if (stream != null && started) {
            endCancelled(); // running: the stream is the call, and it stops here
        }
    }

    /** Gives back the call's slot in its method's adaptive limit, if it holds one ({@link LimitSlot}). */
    private void releaseLimit(boolean sample) {
        LimitSlot s = slot;
        if (s != null) {
            s.release(sample && started);
        }
    }

    /** Ends a cancelled call without an answer. */
    private void endCancelled() {
        releaseFrame();
        result = null;
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(RpcStatus.CANCELLED);
            finished();
        }
    }

    @Override
    public void run() {
        if (cancelled) {
            endCancelled(); // cancelled while it waited for a thread
            return;
        }
        if (answered.get()) {
            releaseFrame(); // refused while it waited (a stream that broke its rules): nothing runs
            return;
        }
        started = true;
        if (cancelled && stream != null) {
            endCancelled(); // a cancel that saw it not yet started: ended here, not left running
            return;
        }
        try {
            server.requestHandler().handle(this); // the server's policy; it answers through this exchange
        } catch (Throwable t) {
            releaseFrame();
            log.error("Failed to serve {} from {}", method.descriptor(), connection.peer, t);
            answerError(RpcStatus.INTERNAL, "server failed: " + t);
        }
    }

    // ServerExchange: what the server's policy (io.xrpc.server.CallPolicy) sees of this request.

    @Override
    public Routes.Route route() {
        return method;
    }

    @Override
    public Map<String, String> attachments() {
        return head.attachments();
    }

    @Override
    public Endpoint peer() {
        return connection.peer;
    }

    @Override
    public List<X509Certificate> peerCertificates() {
        return connection.peerCertificates();
    }

    @Override
    public String server() {
        return String.valueOf(server.endpoint());
    }

    @Override
    public long deadlineNanos() {
        return deadline;
    }

    @Override
    public Serializer serializer() {
        return serializer;
    }

    @Override
    public int requestBytes() {
        return requestBytes;
    }

    @Override
    public Object[] readArguments() throws IOException {
        try {
            // Here, after the authenticator admitted the call: a peer without credentials makes
            // the server inflate nothing.
            String error = frame.decompress(server.compressors(), server.maxFrameLength());
            if (error != null) {
                throw new SerializationException("bad request body: " + error);
            }
            return RpcCodec.readArguments(
                    frame.body(),
                    serializer,
                    method.descriptor().wireParameterTypes(),
                    method.descriptor().wireGenericParameterTypes(),
                    deadline);
        } finally {
            releaseFrame();
        }
    }

    /** Counted after its answer was queued, so that the answer goes out before a GOAWAY for it. */
    @Override
    public void malformed(String why) {
        connection.strikes.malformed(why);
    }

    @Override
    public void authenticated() {
        connection.auth.admitted();
    }

    @Override
    public void authenticationRefused(String reason) {
        connection.auth.refused(method.descriptor().toString(), reason);
    }

    @Override
    public void discardArguments() {
        releaseFrame();
    }

    @Override
    public Runnable schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> f = connection.schedule(task, delayNanos);
        return () -> f.cancel(false);
    }

    @Override
    public void invocation(Invocation invocation) {
        this.invocation = invocation;
        RpcStatus status = answeredWith;
        if (status != null) {
            // Answered before the invocation existed (a stream ended by its caller meanwhile):
            // its listeners, the deadline's cancellation among them, run now.
            Invocations.answered(invocation, status);
            return;
        }
        connection.strikes.wellFormed(); // its arguments were read and checked
    }

    /** Whether the call was answered (or cancelled): nothing more is sent for it. */
    boolean isAnswered() {
        return answered.get();
    }

    @Override
    public boolean answered() {
        return answered.get();
    }

    /** The result goes to the connection, which has it encoded once there is room ({@link #encodeAndAnswer}). */
    @Override
    public void answer(Object value) {
        releaseLimit(true);
        if (stream != null) {
            stream.answer(value);
            return;
        }
        result = value;
        connection.pump.deliver(this);
    }

    // The stream of a stream call (ServerStream), and what the policy asks of it through the exchange.

    @Override
    public Flow.Publisher<Object> acceptStream() {
        return stream == null ? null : stream.accept();
    }

    @Override
    public CompletableFuture<Void> send(Flow.Publisher<?> messages) {
        return stream.send(messages);
    }

    /** Ends the stream call with {@code end}, its STREAM_END, unless it was answered already. */
    void endStream(RpcStatus status, ByteBuf end) {
        if (cancelled) {
            end.release();
            endCancelled();
            return;
        }
        answer(status, end);
    }

    long id() {
        return id;
    }

    String description() {
        return method.descriptor().toString();
    }

    Compressor compressor() {
        return compressor;
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
        if (cancelled) {
            endCancelled();
            return;
        }
        ByteBuf out;
        try {
            out = RpcCodec.encodeResponse(
                    connection.alloc(),
                    id,
                    serializer,
                    compressor,
                    server.compressThreshold(),
                    server.maxFrameLength(),
                    value);
        } catch (Exception | StackOverflowError e) {
            String problem = "cannot write the result of " + method.descriptor() + " with " + serializer.name() + ": "
                    + e.getMessage();
            if (stats.firstResultFailure()) {
                log.warn("{} (the method ran; its callers get SERIALIZATION_ERROR; logged once per method)", problem);
            }
            answerError(RpcStatus.SERIALIZATION_ERROR, problem);
            return;
        } catch (Throwable t) {
            log.error("Failed to answer {} from {}", method.descriptor(), connection.peer, t);
            answerError(
                    RpcStatus.INTERNAL,
                    "server failed to answer: " + t.getClass().getName());
            return;
        }
        stats.responseSize.record(out.readableBytes());
        answer(out);
    }

    @Override
    public void answerApplicationError(String className, String message, String text, ExceptionValue carried) {
        releaseLimit(true);
        if (stream != null && stream.accepted()) {
            answerOnce(
                    RpcStatus.APPLICATION_ERROR,
                    () -> stream.errorEnd(RpcStatus.APPLICATION_ERROR, className, message, text));
            return;
        }
        // Without a carried form (or one that does not fit) this is the plain text answer.
        answerOnce(
                RpcStatus.APPLICATION_ERROR,
                () -> ErrorCodec.encodeApplicationError(
                        connection.alloc(),
                        id,
                        serializer,
                        compressorId,
                        className,
                        message,
                        text,
                        server.maxFrameLength(),
                        carried));
    }

    @Override
    public void answerError(RpcStatus status, String message) {
        releaseLimit(status == RpcStatus.DEADLINE_EXCEEDED); // a call that waited past its deadline is a sample of load
        if (stream != null && stream.accepted()) {
            answerOnce(status, () -> stream.errorEnd(status, null, message, null));
            return;
        }
        answerOnce(
                status,
                () -> ErrorCodec.encodeError(
                        connection.alloc(),
                        id,
                        serializerId,
                        compressorId,
                        status,
                        null,
                        message,
                        null,
                        server.maxFrameLength()));
    }

    /** Encodes and queues an error answer unless the call was answered already. */
    private void answerOnce(RpcStatus status, Supplier<ByteBuf> encode) {
        if (cancelled) {
            endCancelled();
            return;
        }
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(status);
            try {
                write(encode.get());
            } finally {
                finished();
            }
        }
    }

    /** Queues the call's answer: an accepted stream's end goes after the stream's messages. */
    private void write(ByteBuf out) {
        if (stream != null && stream.accepted()) {
            connection.writes.enqueueStream(out);
        } else {
            connection.writes.enqueue(out);
        }
    }

    private void answer(ByteBuf out) {
        answer(RpcStatus.OK, out);
    }

    private void answer(RpcStatus status, ByteBuf out) {
        if (answered.compareAndSet(false, true)) {
            notifyAnswered(status);
            try {
                write(out);
            } finally {
                finished();
            }
        } else {
            out.release();
        }
    }

    private void finished() {
        if (tracked) {
            connection.inFlight.remove(id, this);
        }
        releaseLimit(false); // refused or cancelled before it answered: not a sample
        server.callFinished();
        if (dispatched) {
            connection.admission.callDone(reserved);
        }
        if (stream != null) {
            connection.openStreams.decrementAndGet();
            stream.ended(null); // last: what is left of the stream is dropped
        }
    }

    /**
     * Tells the invocation's listeners the status the caller is about to receive; before the
     * answer is queued, so that what they record is there by the time the caller has its answer.
     */
    private void notifyAnswered(RpcStatus status) {
        answeredWith = status;
        Invocation inv = invocation;
        if (inv != null) {
            try {
                Invocations.answered(inv, status);
            } catch (Throwable e) { // an Error too: the answer must still be sent and the call end
                log.warn("A listener of {} threw", method.descriptor(), e);
            }
        }
    }

    /** Answers a request that will not run (full executor, bad head, shutdown). */
    void refuse(RpcStatus status, String message) {
        releaseFrame();
        answerError(status, message);
    }

    /** The server or the connection dropped this call without running it. */
    void abandon() {
        refuse(
                RpcStatus.UNAVAILABLE,
                "server " + server.endpoint() + " shut down before running " + method.descriptor());
    }

    private void releaseFrame() {
        Frame f = frame;
        if (f != null) {
            frame = null;
            f.release();
            if (expensiveRead && dispatched) {
                connection.admission.expensiveReadDone();
            }
        }
    }
}
