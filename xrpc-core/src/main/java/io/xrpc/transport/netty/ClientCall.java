package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.CallTarget;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * One call in flight on the client: its encoded frame until written, its deadline timer, and the
 * future its caller waits on.
 *
 * <p>It ends exactly once, by whichever comes first: the response, the deadline, a write failure,
 * the connection closing or the client closing. Ending removes it from its connection's pending
 * map, cancels its timer, frees its slot in the client's pending limit and releases its frame if
 * it was never written, so nothing of a finished call stays behind.
 */
final class ClientCall implements WriteQueue.Tracked, TimerTask {
    private static final AtomicIntegerFieldUpdater<ClientCall> DONE =
            AtomicIntegerFieldUpdater.newUpdater(ClientCall.class, "done");
    private static final AtomicReferenceFieldUpdater<ClientCall, ByteBuf> FRAME =
            AtomicReferenceFieldUpdater.newUpdater(ClientCall.class, ByteBuf.class, "frame");

    final long id;
    final String description;
    final Endpoint endpoint;
    final long timeoutMillis;
    /** When this attempt was sent: a retry's or a bounded attempt's deadline is not its start plus the timeout. */
    private final long sentNanos;

    final Serializer serializer;
    /** The method's result type and what rebuilds an exception it declares. */
    final CallTarget target;
    /** The call's deadline ({@link System#nanoTime()}); reading its response stops there too. */
    final long deadlineNanos;
    /** Bytes of the encoded request, counted against the client's limit of unwritten request bytes. */
    private final int frameBytes;
    /** Cancelling it ends the call as its deadline would (a hedged attempt that lost). */
    final CompletableFuture<Object> future = new CallFuture();

    private final NettyClientTransport transport;
    private volatile int done;
    private volatile ByteBuf frame;
    volatile ClientConnection connection;
    /**
     * Set once the call counts as active on its provider; from then on its frame counts against
     * the provider's limit of unwritten request bytes too.
     */
    volatile EndpointPool pool;

    volatile Timeout timeout;
    /** The stream of a stream call; null for a call of one answer. Set before the call is sent. */
    ClientStream stream;
    /** Set on the event loop once the frame was written to the socket. */
    boolean sent;

    ClientCall(
            NettyClientTransport transport,
            long id,
            CallTarget target,
            Endpoint endpoint,
            long timeoutMillis,
            Serializer serializer,
            long deadlineNanos,
            long sentNanos,
            ByteBuf frame) {
        this.transport = transport;
        this.deadlineNanos = deadlineNanos;
        this.frameBytes = frame.readableBytes();
        this.id = id;
        this.description = target.description();
        this.endpoint = endpoint;
        this.timeoutMillis = timeoutMillis;
        this.sentNanos = sentNanos;
        this.serializer = serializer;
        this.target = target;
        this.frame = frame;
    }

    @Override
    public ByteBuf takeFrame() {
        ByteBuf f = FRAME.getAndSet(this, null);
        if (f == null) {
            return Unpooled.EMPTY_BUFFER;
        }
        unqueued();
        return f;
    }

    int frameBytes() {
        return frameBytes;
    }

    /** The frame left the queue (written or released): it no longer counts against its provider. */
    private void unqueued() {
        EndpointPool p = pool;
        if (p != null) {
            p.queuedRequestBytes.addAndGet(-frameBytes);
        }
    }

    /**
     * A response came: the provider answers. {@code failure} names what it answered when that was
     * a failure of its own (an exception the method does not declare, {@code SERVER_BUSY}, an
     * internal error), which counts against it; null for an answer.
     */
    void answered(String failure) {
        EndpointPool p = pool;
        if (p != null) {
            if (failure == null) {
                p.health.succeeded();
            } else {
                p.health.failedAnswer(failure);
            }
        }
    }

    @Override
    public void operationComplete(ChannelFuture f) {
        if (f.isSuccess()) {
            sent = true;
        } else {
            fail(new RpcException(
                    RpcStatus.UNAVAILABLE, description + " was not sent to " + endpoint + ": " + f.cause(), f.cause()));
        }
    }

    /**
     * The deadline passed. The call is failed on an event loop rather than on the timer thread:
     * callers' callbacks run where the future completes, and one that blocked the single timer
     * thread would hold up every other deadline.
     */
    @Override
    public void run(Timeout t) {
        EndpointPool p = pool;
        if (p != null && done == 0 && sent) {
            p.health.failed(); // sent and no answer in time: the provider may be frozen or overloaded
        }
        RpcException e = new RpcException(
                RpcStatus.DEADLINE_EXCEEDED, description + " to " + endpoint + " timed out after " + timedOutAfter());
        onEventLoop(() -> fail(e));
    }

    /** Runs {@code task} on the connection's event loop, or here when the loops are shutting down. */
    private void onEventLoop(Runnable task) {
        try {
            transport.eventLoopFor(connection).execute(task);
        } catch (RejectedExecutionException closing) {
            task.run();
        }
    }

    boolean isDone() {
        return done != 0;
    }

    /**
     * The caller cancelled (a hedged attempt that lost): the call ends on an event loop, as at its
     * deadline, and counts in the provider's latency as the time it had waited. It once counted as
     * the whole budget, because the time waited made a frozen provider look as fast as the hedging
     * delay; a silent provider's estimate now rises with its silence
     * ({@link NettyClientTransport#latencyNanos}), and the budget kept every healthy provider a
     * hedge happened to beat out of {@code p2c}'s choices for seconds, so that when one froze the
     * others looked no better and calls kept going to it.
     */
    private void cancelled() {
        onEventLoop(() -> {
            // On the connection's event loop, where its answer would be handled: no answer races this.
            ClientConnection c = connection;
            if (done == 0 && sent && transport.cancelsOnProvider() && c != null && c.channel.isActive()) {
                // Queued before the call ends here, so that what is sent after the end follows it.
                // The provider skips the request if it has not started it, and sends no answer.
                c.writes.enqueue(RpcCodec.encodeCancel(c.channel.alloc(), id));
            }
            if (end(WAITED)) {
                ended(new RpcException(RpcStatus.CANCELLED, description + ": cancelled by the caller"));
            }
        });
    }

    private final class CallFuture extends CompletableFuture<Object> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                cancelled();
            }
            return cancelled;
        }
    }

    void succeed(Object value) {
        if (end(ANSWERED)) {
            ended(null);
            future.complete(value);
        }
    }

    /** Fails the call; its provider's latency counts it as the whole budget, as an unanswered call. */
    void fail(Throwable cause) {
        if (end(UNANSWERED)) {
            ended(cause);
            future.completeExceptionally(cause);
        }
    }

    /** What is left of a stream call's stream goes with it. */
    private void ended(Throwable cause) {
        ClientStream s = stream;
        if (s != null) {
            s.ended(cause);
        }
    }

    /**
     * Fails the call with the method's own answer (an exception it declares): the time waited is
     * the provider's latency, as for a result. An undeclared one goes through {@link #fail}: a
     * provider that throws at once must not look fast.
     */
    void failWithAnswer(Throwable cause) {
        if (end(ANSWERED)) {
            ended(cause);
            future.completeExceptionally(cause);
        }
    }

    /** How an ended call counts in its provider's latency: an answer's time, the time waited, or the whole budget. */
    private static final int ANSWERED = 0;

    private static final int WAITED = 1;
    private static final int UNANSWERED = 2;

    private boolean end(int how) {
        if (!DONE.compareAndSet(this, 0, 1)) {
            return false;
        }
        ClientConnection c = connection;
        if (c != null) {
            c.pending.remove(id, this);
            if (c.goingAway) {
                c.closeIfDrained();
            }
        }
        Timeout t = timeout;
        if (t != null) {
            t.cancel();
        }
        ByteBuf f = FRAME.getAndSet(this, null);
        if (f != null) {
            unqueued();
            f.release();
        }
        EndpointPool p = pool;
        if (p != null) {
            LatencyEstimate l = p.latency;
            if (l != null && stream == null) { // a stream's length says nothing of the provider's speed
                long now = System.nanoTime();
                long waited = Math.min(deadlineNanos - sentNanos, now - sentNanos);
                if (how == ANSWERED) {
                    l.recordAnswer(waited, now);
                } else {
                    l.record(
                            how == WAITED ? waited : timeoutMillis * 1_000_000L,
                            now); // a failure counts as the whole timeout
                }
            }
            p.active.decrementAndGet();
        }
        transport.callEnded();
        return true;
    }

    /**
     * {@code 3000 ms}, or for an attempt that had less than the call's timeout (a retry, a bounded
     * attempt) {@code 500 ms (the call's timeout is 3000 ms)}.
     */
    String timedOutAfter() {
        long attemptMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - sentNanos);
        return attemptMillis >= timeoutMillis - 1
                ? timeoutMillis + " ms"
                : attemptMillis + " ms (the call's timeout is " + timeoutMillis + " ms)";
    }
}
