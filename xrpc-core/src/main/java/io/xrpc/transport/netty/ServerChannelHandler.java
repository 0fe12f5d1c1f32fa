package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the requests of one connection. Not sharable: it owns the connection's write queue and
 * the state that keeps one peer from costing more than its own connection.
 *
 * <p>On the event loop it only routes: it finds the method (so an unknown service or method, an
 * expired budget or a full executor is answered at once, without deserializing anything) and hands
 * a {@link ServerCall} to the business executor, where the body is decompressed, the arguments are
 * read, the call runs and the answer is encoded and queued. Any failure of one request is answered
 * on that request; only a framing error closes the connection.
 *
 * <p>Output is bounded by the write-buffer water marks, three ways. While the connection's
 * outbound bytes are over the high mark (a peer that does not read), nothing more is read from it.
 * A request is admitted to the executor only while its method's usual response size (the largest
 * of its recent ones) still fits under the high mark beside the output pending and the calls
 * already running; otherwise it waits here, and reading pauses until the calls running end. And a
 * result is encoded only while there is room, so the encoded output one peer holds stays under
 * the high mark plus one frame, whatever it sent.
 */
final class ServerChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ServerChannelHandler.class);

    private final NettyServerTransport server;
    private final LinkDelay delay = new LinkDelay();
    /** Requests read but not yet admitted, in order. Event loop only. */
    private final ArrayDeque<ServerCall> backlog = new ArrayDeque<>();
    private volatile boolean backlogged;
    /** Calls of this connection given to the executor and not yet answered. */
    private final AtomicInteger running = new AtomicInteger();
    /** Sum of the expected response sizes of the running calls. */
    private final AtomicLong reserved = new AtomicLong();
    /** Calls whose results wait for room to be encoded. */
    private final Queue<ServerCall> waitingForRoom = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean pumping = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    WriteQueue writes;
    Endpoint peer;

    ServerChannelHandler(NettyServerTransport server) {
        this.server = server;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        writes = new WriteQueue(ctx.channel(), this::afterWrite);
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
            case REQUEST -> onRequest(frame);
            case HEARTBEAT_PING -> {
                if (frame.isTimestamped()) {
                    delay.waited(frame.sentAtMillis(), System.nanoTime()); // keeps the link's baseline fresh
                }
                frame.release();
                writes.enqueue(RpcCodec.encodeControl(ctx.alloc(), MessageType.HEARTBEAT_PONG));
            }
            default -> frame.release();
        }
    }

    private void onRequest(Frame frame) {
        long now = System.nanoTime();
        int waited = frame.isTimestamped() ? delay.waited(frame.sentAtMillis(), now) : 0;
        ServerCall call = new ServerCall(server, this, frame, now, waited);
        if (!call.routeOnEventLoop()) {
            return; // answered already
        }
        if (backlogged || !admits(call)) {
            backlog.add(call);
            if (!backlogged) {
                backlogged = true;
                ctx.channel().config().setAutoRead(false);
            }
            return;
        }
        dispatch(call);
    }

    /** Whether the connection has room for the call's expected response beside what is pending and running. */
    private boolean admits(ServerCall call) {
        Channel ch = ctx.channel();
        if (!ch.isWritable()) {
            return false;
        }
        if (running.get() == 0) {
            return true;
        }
        long high = server.writeBufferHighWaterMark();
        long pending = writes.queuedBytes() + (high - ch.bytesBeforeUnwritable());
        return pending + reserved.get() + call.expectedResponseBytes() <= high;
    }

    private void dispatch(ServerCall call) {
        long expected = call.expectedResponseBytes();
        running.incrementAndGet();
        reserved.addAndGet(expected);
        call.dispatched(expected);
        try {
            server.executor().execute(call);
        } catch (RejectedExecutionException e) {
            call.refuse(RpcStatus.SERVER_BUSY, "server " + server.endpoint() + " is busy: all "
                    + server.executorThreads() + " threads and " + server.executorQueue() + " queue slots in use");
        }
    }

    /** A dispatched call was answered (any thread). */
    void callDone(long expected) {
        running.decrementAndGet();
        reserved.addAndGet(-expected);
        if (backlogged) {
            ctx.executor().execute(this::admitBacklog);
        }
    }

    /** Admits what waits while there is room; reading resumes once nothing waits. Event loop. */
    private void admitBacklog() {
        ServerCall c;
        while ((c = backlog.peek()) != null && admits(c)) {
            backlog.poll();
            if (server.isDraining()) {
                c.refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            } else {
                dispatch(c);
            }
        }
        if (backlog.isEmpty() && backlogged) {
            backlogged = false;
            if (ctx.channel().isWritable()) {
                ctx.channel().config().setAutoRead(true);
            }
        }
    }

    /** Whether a result of about {@code bytes} may be encoded now. */
    private boolean hasRoomFor(long bytes) {
        Channel ch = ctx.channel();
        return !ch.isActive() || ch.isWritable() && writes.queuedBytes() + bytes < ch.bytesBeforeUnwritable();
    }

    /**
     * A call's result is ready (any thread): encode and send it now if its usual size fits,
     * else park it until there is room. Parked results are encoded one at a time.
     */
    void deliver(ServerCall call) {
        if (waitingForRoom.isEmpty() && hasRoomFor(call.expectedResponseBytes())) {
            call.encodeAndAnswer();
            return;
        }
        waitingForRoom.add(call);
        pump();
    }

    /** Encodes parked results while there is room, one at a time whatever thread calls. */
    private void pump() {
        while (!waitingForRoom.isEmpty() && hasRoomFor(0) && pumping.compareAndSet(false, true)) {
            try {
                ServerCall c;
                while (hasRoomFor(0) && (c = waitingForRoom.poll()) != null) {
                    c.encodeAndAnswer();
                }
            } finally {
                pumping.set(false);
            }
        }
    }

    /** The write queue handed bytes to the socket (event loop): parked results may fit now. */
    private void afterWrite() {
        if (!waitingForRoom.isEmpty() && hasRoomFor(0)) {
            schedulePump();
        }
    }

    private void schedulePump() {
        try {
            server.executor().execute(this::pump); // encoding is the executor's work, not the loop's
        } catch (RejectedExecutionException e) {
            pump();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        writes.resume();
        if (ctx.channel().isWritable()) {
            if (!waitingForRoom.isEmpty()) {
                schedulePump();
            }
            admitBacklog();
            if (!backlogged) {
                ctx.channel().config().setAutoRead(true);
            }
        } else {
            // The peer is not reading what we send: read no more calls from it until it does.
            ctx.channel().config().setAutoRead(false);
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        writes.resume(); // fails and releases what still waits
        ServerCall c;
        while ((c = backlog.poll()) != null) {
            c.abandon();
        }
        pump();
        super.channelInactive(ctx);
    }

    /** Answers every admitted-but-waiting request UNAVAILABLE (shutdown); event loop. */
    void abandonBacklog() {
        ServerCall c;
        while ((c = backlog.poll()) != null) {
            c.abandon();
        }
        backlogged = false;
    }

    io.netty.buffer.ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    /** Runs {@code task} on this connection's event loop after {@code nanos}. */
    io.netty.util.concurrent.ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return ctx.executor().schedule(task, nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Calls of this connection running or waiting. */
    int pendingCalls() {
        return running.get() + backlog.size();
    }

    /** Encoded output waiting for this peer: in the write queue and in the channel's buffer. */
    long pendingOutputBytes() {
        Channel ch = ctx == null ? null : ctx.channel();
        if (ch == null) {
            return 0;
        }
        io.netty.channel.ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        return writes.queuedBytes() + (out == null ? 0 : out.totalPendingWriteBytes());
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
