package io.xrpc.transport.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.ShortStringCache;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>The connection's output is bounded by the write-buffer water marks, three ways. While its
 * outbound bytes are over the high mark (a peer that does not read), nothing more is read from it.
 * A request is admitted to the executor only while the usual response size of its method (the
 * largest of its recent ones) fits under the high mark beside the output pending and the calls
 * already running; otherwise it waits here, and reading pauses until calls end. And once results
 * wait, they are encoded one at a time as there is room. Encoded output for one peer thus stays
 * near the high mark: beyond it by one frame, or by the frames of calls whose responses turned out
 * larger than their method's usual (a method's first calls, before any of its sizes is known).
 */
final class ServerChannelHandler extends ChannelInboundHandlerAdapter {
    /** A NonBlocking method that holds its event loop longer than this is logged (once per method). */
    static final long NON_BLOCKING_WARN_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ServerChannelHandler.class);
    private static final long PUMP_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final NettyServerTransport server;
    private final LinkDelay delay = new LinkDelay();
    /** The service keys and signatures this connection named lately. Event loop only. */
    final ShortStringCache names = new ShortStringCache();
    /** Requests read but not yet admitted, in order. Event loop only. */
    private final ArrayDeque<ServerCall> backlog = new ArrayDeque<>();
    private volatile boolean backlogged;
    private final AtomicBoolean admitScheduled = new AtomicBoolean();
    /**
     * Calls of this connection read and not yet finished, by request id: what a CANCEL looks up.
     * Bounded by the calls in flight; per connection, so a peer reaches only its own calls.
     */
    final java.util.concurrent.ConcurrentHashMap<Long, ServerCall> inFlight = new java.util.concurrent.ConcurrentHashMap<>();
    /** Calls of this connection given to the executor and not yet answered. */
    private final AtomicInteger running = new AtomicInteger();
    /** Sum of the expected response sizes of the running calls. */
    private final AtomicLong reserved = new AtomicLong();
    /** Calls whose results wait for room to be encoded. */
    private final Queue<ServerCall> waitingForRoom = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean pumping = new AtomicBoolean();
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();
    private volatile ChannelHandlerContext ctx;
    private FrameDecoder decoder;
    volatile WriteQueue writes;
    volatile Endpoint peer;

    ServerChannelHandler(NettyServerTransport server) {
        this.server = server;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            peer = new Endpoint(a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString(),
                    Math.max(1, a.getPort()));
        }
        decoder = ctx.pipeline().get(FrameDecoder.class);
        writes = new WriteQueue(ctx.channel(), this::afterWrite);
        this.ctx = ctx;
        NettyServerTransport.Settings s = server.settings();
        if (s.authenticates()) {
            server.awaitingAuthentication(this);
            ctx.channel().closeFuture().addListener(f -> server.authenticatedOrClosed(this));
            long timeout = s.authenticationTimeout().toNanos();
            if (timeout > 0) {
                armAuthenticationDeadline(timeout);
            }
        }
        super.channelActive(ctx);
    }

    /** The client's verified chain, read from the TLS session at the first request that asks. */
    private volatile java.util.List<java.security.cert.X509Certificate> peerCertificates;

    /**
     * The certificate chain the client presented in this connection's TLS handshake, which the
     * server verified; empty for plaintext or when it presented none (any thread, after a request
     * was read, so after the handshake).
     */
    java.util.List<java.security.cert.X509Certificate> peerCertificates() {
        java.util.List<java.security.cert.X509Certificate> chain = peerCertificates;
        if (chain == null) {
            chain = java.util.List.of();
            io.netty.handler.ssl.SslHandler tls = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
            if (tls != null) {
                try {
                    java.util.List<java.security.cert.X509Certificate> certs = new java.util.ArrayList<>();
                    for (java.security.cert.Certificate c : tls.engine().getSession().getPeerCertificates()) {
                        if (c instanceof java.security.cert.X509Certificate x) {
                            certs.add(x);
                        }
                    }
                    chain = java.util.List.copyOf(certs);
                } catch (javax.net.ssl.SSLPeerUnverifiedException none) {
                    // it presented no certificate (client-auth optional or none)
                }
            }
            peerCertificates = chain;
        }
        return chain;
    }

    /** Set once a call of this connection was admitted by the authenticator. */
    private volatile boolean authenticated;
    /** Calls refused by the authenticator since the last admitted one. */
    private final AtomicInteger refusedInARow = new AtomicInteger();
    private volatile ScheduledFuture<?> authDeadline;
    /** Set once this side decided to close the connection with a GOAWAY; nothing more of it runs. */
    private final AtomicBoolean closing = new AtomicBoolean();

    /** Whether a call of this connection passed the authenticator, or the server has none. */
    boolean isAuthenticated() {
        return authenticated || !server.settings().authenticates();
    }

    /** A call of this connection passed the authenticator (any thread). */
    void authenticated() {
        refusedInARow.set(0);
        if (!authenticated) {
            authenticated = true;
            server.authenticatedOrClosed(this);
            if (decoder != null) {
                decoder.budget(server.memoryBudget()); // its next large requests may use the whole budget
            }
            ScheduledFuture<?> d = authDeadline;
            if (d != null) {
                d.cancel(false);
            }
        }
    }

    /**
     * A call of this connection was refused by the authenticator, and answered (any thread). Only
     * a connection that never carried an admitted call is closed for refusals: one shared by
     * several callers (a gateway's) keeps serving the others.
     */
    void authenticationRefused(String method, String reason) {
        int n = refusedInARow.incrementAndGet();
        server.authenticationRefused(peer, method, reason, n);
        int max = server.settings().maxAuthenticationFailures();
        if (max > 0 && n >= max && !authenticated) {
            // Its refusals were answered first, so the client does not take the GOAWAY to mean nothing ran.
            ctx.executor().execute(() -> closeForAuthentication(n + " calls in a row were refused UNAUTHENTICATED"
                    + " (maxAuthenticationFailures), the last: " + reason));
        }
    }

    /**
     * Set when the authentication deadline passed while calls of this connection were being decided:
     * its later requests are refused unread, so that calls the authenticator keeps busy cannot hold
     * the connection past its deadline. Event loop.
     */
    private boolean pastAuthenticationDeadline;

    /** Whether the frame arriving at the authentication deadline was given its one frame timeout of grace. */
    private boolean authGraceGiven;

    /**
     * Closes the connection if it has carried no authenticated call {@code nanos} from now. The
     * deadline is absolute: a call being decided is waited for (the authenticator answers it, and
     * three refusals close the connection), and a frame arriving earns one frame timeout of grace,
     * once, so a peer that always has a frame half-sent cannot stay.
     */
    private void armAuthenticationDeadline(long nanos) {
        authDeadline = ctx.executor().schedule(() -> {
            if (authenticated || closing.get() || !ctx.channel().isActive()) {
                return;
            }
            String why = "it carried no authenticated call within "
                    + server.settings().authenticationTimeout().toMillis() + " ms of opening (authenticationTimeout)";
            if (callBeingDecided()) {
                // No new request of it is taken from now on; it closes once those being decided end.
                pastAuthenticationDeadline = true;
                armAuthenticationDeadline(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
            } else if (decoder != null && decoder.isReceiving() && !authGraceGiven && server.settings().frameTimeout().toNanos() > 0) {
                authGraceGiven = true;
                armAuthenticationDeadline(server.settings().frameTimeout().toNanos());
            } else {
                closeForAuthentication(authGraceGiven ? why + ", nor by the end of the frame it was receiving then" : why);
            }
        }, nanos, TimeUnit.NANOSECONDS);
    }

    /** A request of this connection is with the authenticator, or waits for admission. */
    private boolean callBeingDecided() {
        return running.get() != 0 || backlogged;
    }

    /**
     * Closes this connection with a GOAWAY naming {@code why}, unless it has authenticated
     * meanwhile, has a call being decided (the GOAWAY tells the client nothing ran, which must be
     * true), or is closing already (any thread). Returns whether it closes for this.
     */
    boolean closeUnauthenticated(String why) {
        return evictable() && closeForAuthentication(why);
    }

    /**
     * Not authenticated, no call with the authenticator or waiting for admission, not closing. A
     * request still arriving does not protect it: a peer that always has a frame half-sent would
     * otherwise hold its slot for good (its request, never read whole, has not run). Read from
     * another event loop at the cap, where a stale answer costs at most a call that then ends
     * CONNECTION_CLOSED, never one reported unrun.
     */
    boolean evictable() {
        return !authenticated && !callBeingDecided() && !closing.get();
    }

    private boolean closeForAuthentication(String why) {
        if (!closing.compareAndSet(false, true)) {
            return false;
        }
        server.closedForAuthentication();
        server.closeLog().warn("Closing connection from {}: {}", peer, why);
        // Not a refusal (UNAVAILABLE): the client would set this provider aside, and it is the
        // connection, not the provider, that failed.
        goAwayAndClose(RpcStatus.UNAUTHENTICATED, "server " + server.endpoint() + " closed the connection: " + why);
        return true;
    }

    /**
     * Reads no more from the peer, and sends a GOAWAY of {@code status} saying {@code why} after
     * every answer queued before it, then this side's end of the stream; the connection closes
     * {@link #CLOSE_AFTER_GOAWAY_SECONDS} later, so that the peer reads the GOAWAY rather than a
     * reset, and whether or not it ever reads it (any thread).
     */
    private void goAwayAndClose(RpcStatus status, String why) {
        ChannelHandlerContext c = ctx;
        if (c.executor().inEventLoop()) {
            c.channel().config().setAutoRead(false);
        } else {
            c.executor().execute(() -> c.channel().config().setAutoRead(false));
        }
        c.executor().schedule(() -> {
            c.close();
        }, CLOSE_AFTER_GOAWAY_SECONDS, TimeUnit.SECONDS);
        writes.enqueue(new WriteQueue.Tracked() {
            @Override
            public io.netty.buffer.ByteBuf takeFrame() {
                return RpcCodec.encodeGoAway(c.alloc(), status, why);
            }

            @Override
            public void operationComplete(io.netty.channel.ChannelFuture f) {
                if (c.channel() instanceof io.netty.channel.socket.DuplexChannel d) {
                    d.shutdownOutput();
                }
            }
        });
    }

    /** How long a connection closed on purpose has to read its GOAWAY before it is closed. */
    private static final long CLOSE_AFTER_GOAWAY_SECONDS = 2;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (closing.get()) {
            frame.release(); // read before reading stopped: this side is closing, nothing more runs
            return;
        }
        switch (frame.type()) {
            case REQUEST -> onRequest(frame);
            case CANCEL -> {
                ServerCall c = inFlight.get(frame.requestId());
                frame.release();
                if (c != null) {
                    c.cancel();
                }
            }
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
        if (pastAuthenticationDeadline && !authenticated) {
            call.refuse(RpcStatus.UNAUTHENTICATED, "server " + server.endpoint() + ": this connection carried no"
                    + " authenticated call within " + server.settings().authenticationTimeout().toMillis() + " ms of"
                    + " opening (authenticationTimeout) and takes no more requests; it closes; request not run");
            return;
        }
        if (!call.routeOnEventLoop()) {
            return; // answered already
        }
        call.tracked();
        if (!backlogged && admits(call)) {
            dispatch(call);
            return;
        }
        backlog.add(call);
        if (!backlogged) {
            backlogged = true;
            pauseReading();
            sayAliveWhilePaused();
        }
        // A call may have ended between the look above and the flag: it saw no backlog and
        // scheduled nothing, so look again now that the flag is set.
        admitBacklog();
    }

    /**
     * Expensive reads (a compressed body, or one over {@link #CHEAP_BODY} bytes) one connection may
     * have under way at once: half the cores, at least one. Inflating and deserializing are the
     * work a peer can make large at will; past its share, its later requests wait unread, and the
     * other connections keep the rest of the machine.
     */
    static final int MAX_EXPENSIVE_READS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    /** A plain body up to this size is read without counting against {@link #MAX_EXPENSIVE_READS}. */
    static final int CHEAP_BODY = 16 * 1024;
    /** Requests in a row refused as malformed after which the connection is closed. */
    static final int MAX_MALFORMED_IN_A_ROW = 10;

    /** Dispatched calls of this connection whose expensive body is still being read. */
    private final AtomicInteger expensiveReads = new AtomicInteger();
    private final AtomicInteger malformedInARow = new AtomicInteger();

    /** A dispatched call's expensive body was read or dropped (any thread). */
    void expensiveReadDone() {
        expensiveReads.decrementAndGet();
        scheduleAdmit();
    }

    /** A request of this connection was refused as malformed (any thread); closes it after too many in a row. */
    void malformed(String why) {
        if (malformedInARow.incrementAndGet() == MAX_MALFORMED_IN_A_ROW && closing.compareAndSet(false, true)) {
            server.closeLog().warn("Closing connection from {}: {} requests in a row were malformed, the last: {}",
                    peer, MAX_MALFORMED_IN_A_ROW, why);
            goAwayAndClose(RpcStatus.SERIALIZATION_ERROR, "server " + server.endpoint() + " closed the connection: "
                    + MAX_MALFORMED_IN_A_ROW + " requests in a row were malformed, the last: " + why);
        }
    }

    /** A request of this connection was read whole (any thread). */
    void wellFormed() {
        if (malformedInARow.get() != 0) {
            malformedInARow.set(0);
        }
    }

    /** Whether the connection has room for the call's expected response beside what is pending and running. */
    private boolean admits(ServerCall call) {
        Channel ch = ctx.channel();
        if (!ch.isWritable()) {
            return false;
        }
        if (call.expensiveRead && expensiveReads.get() >= MAX_EXPENSIVE_READS) {
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
        if (server.adaptiveConcurrency() && !call.runsOnEventLoop()) {
            if (!isAuthenticated()) {
                call.limitOnceAuthenticated(); // refuse first, admit after: no slot or sample for a stranger
            } else {
                String busy = call.takeLimit();
                if (busy != null) {
                    call.refuse(RpcStatus.SERVER_BUSY, busy);
                    return;
                }
            }
        }
        long expected = call.expectedResponseBytes();
        if (call.expensiveRead) {
            expensiveReads.incrementAndGet();
        }
        running.incrementAndGet();
        reserved.addAndGet(expected);
        call.dispatched(expected);
        if (call.runsOnEventLoop()) {
            long start = System.nanoTime();
            call.run(); // answers, or leaves an asynchronous result to answer later
            long held = System.nanoTime() - start;
            if (held > NON_BLOCKING_WARN_AFTER_NANOS && call.stats().firstLoopHold()) {
                log.warn("{} is marked NonBlocking but held event loop {} for {} ms, during which no other connection"
                        + " of that loop was served; remove the mark if it blocks (logged once per method)",
                        call.route().descriptor(), Thread.currentThread().getName(),
                        TimeUnit.NANOSECONDS.toMillis(held));
            }
            return;
        }
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
        scheduleAdmit();
    }

    /** Admits what waits, on the event loop, if anything waits. */
    private void scheduleAdmit() {
        if (backlogged && admitScheduled.compareAndSet(false, true)) {
            try {
                ctx.executor().execute(() -> {
                    admitScheduled.set(false);
                    admitBacklog();
                });
            } catch (RejectedExecutionException closing) {
                admitScheduled.set(false); // the event loop is gone, and the backlog with it
            }
        }
    }

    /**
     * Admits what waits while there is room (while the server drains, refuses it instead);
     * reading resumes once nothing waits. Event loop.
     */
    private void admitBacklog() {
        ServerCall c;
        while ((c = backlog.peek()) != null && (server.isDraining() || closing.get() || admits(c))) {
            backlog.poll();
            if (closing.get()) {
                c.refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is closing this connection;"
                        + " request not run");
            } else if (server.isDraining()) {
                c.refuse(RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            } else {
                dispatch(c);
            }
        }
        if (backlog.isEmpty() && backlogged) {
            backlogged = false;
            if (ctx.channel().isWritable()) {
                resumeReading();
            }
        }
    }

    /** Pongs sent while reading is paused for this connection's backlog; null when none. Event loop. */
    private ScheduledFuture<?> pausedPongs;
    /** How often a connection whose reading is paused for its backlog says it is alive. */
    static final long PAUSED_PONG_MILLIS = 40;

    /**
     * While reading is paused for calls of this connection, a pong every {@link #PAUSED_PONG_MILLIS}:
     * the client's pings wait unread meanwhile, and its silence watch would take this provider for
     * frozen. Event loop.
     */
    private void sayAliveWhilePaused() {
        if (pausedPongs != null) {
            return;
        }
        pausedPongs = ctx.executor().scheduleAtFixedRate(() -> {
            if (!backlogged || !ctx.channel().isActive() || closing.get()) {
                ScheduledFuture<?> f = pausedPongs;
                pausedPongs = null;
                if (f != null) {
                    f.cancel(false);
                }
                return;
            }
            if (ctx.channel().isWritable()) {
                writes.enqueue(RpcCodec.encodeControl(ctx.alloc(), MessageType.HEARTBEAT_PONG));
            }
        }, PAUSED_PONG_MILLIS, PAUSED_PONG_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void pauseReading() {
        Channel ch = ctx.channel();
        ch.config().setAutoRead(false); // the frame clock stands still; heartbeats go on pinging, not closing
    }

    private void resumeReading() {
        if (closing.get()) {
            return;
        }
        Channel ch = ctx.channel();
        if (decoder != null) {
            decoder.readingResumed();
        }
        ch.config().setAutoRead(true);
    }

    /** Whether a result of about {@code bytes} may be encoded now. */
    private boolean hasRoomFor(long bytes) {
        Channel ch = ctx.channel();
        return ch.isWritable() && writes.queuedBytes() + bytes < ch.bytesBeforeUnwritable();
    }

    /**
     * A call's result is ready (any thread): encode and send it now if its usual size fits,
     * else park it until there is room. Parked results are encoded one at a time.
     */
    void deliver(ServerCall call) {
        if (!ctx.channel().isActive()) {
            call.dropResult(); // nobody to send it to: do not encode it
            return;
        }
        if (waitingForRoom.isEmpty() && hasRoomFor(call.expectedResponseBytes())) {
            call.encodeAndAnswer();
            return;
        }
        waitingForRoom.add(call);
        pump();
    }

    /** Encodes parked results while there is room, one at a time whatever thread calls. */
    private void pump() {
        while (!waitingForRoom.isEmpty() && pumping.compareAndSet(false, true)) {
            try {
                ServerCall c;
                if (!ctx.channel().isActive()) {
                    while ((c = waitingForRoom.poll()) != null) {
                        c.dropResult();
                    }
                    return;
                }
                while (hasRoomFor(0) && (c = waitingForRoom.poll()) != null) {
                    c.encodeAndAnswer();
                }
                if (!hasRoomFor(0)) {
                    return; // afterWrite or the writable edge starts the next round
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

    /** Runs a pump on the executor (encoding is its work, not the loop's); retries while it is full. */
    private void schedulePump() {
        if (!pumpScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            server.executor().execute(() -> {
                pumpScheduled.set(false);
                pump();
            });
        } catch (RejectedExecutionException full) {
            pumpScheduled.set(false);
            if (ctx.channel().isActive()) {
                try {
                    ctx.executor().schedule(this::schedulePump, PUMP_RETRY_NANOS, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    // the event loop is gone with the connection
                }
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            writes.resume();
            if (!waitingForRoom.isEmpty()) {
                schedulePump();
            }
            admitBacklog();
            if (!backlogged) {
                resumeReading();
            }
        } else {
            pauseReading(); // the peer is not reading what we send: read no more calls from it
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        writes.resume(); // fails and releases what still waits
        abandonBacklog();
        pump(); // drops parked results without encoding them
        super.channelInactive(ctx);
    }

    /** Answers every request still waiting for admission UNAVAILABLE (shutdown, close); event loop. */
    void abandonBacklog() {
        ServerCall c;
        while ((c = backlog.poll()) != null) {
            c.abandon();
        }
        if (backlogged) {
            backlogged = false;
            // Reading stopped for the backlog; what the peer sent since must be read to be answered.
            if (ctx.channel().isActive() && ctx.channel().isWritable()) {
                resumeReading();
            }
        }
    }

    ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    /** Runs {@code task} on this connection's event loop after {@code nanos}. */
    ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return ctx.executor().schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    /** Encoded output waiting for this peer: in the write queue and in the channel's buffer (any thread). */
    long pendingOutputBytes() {
        ChannelHandlerContext c = ctx;
        WriteQueue w = writes;
        if (c == null || w == null) {
            return 0;
        }
        ChannelOutboundBuffer out = c.channel().unsafe().outboundBuffer();
        return w.queuedBytes() + (out == null ? 0 : out.totalPendingWriteBytes());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            server.closeLog().warn("Closing connection from {}: {}", peer,
                    cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage());
        } else {
            server.closeLog().warn("Closing connection from {} after an error: {}", peer, cause.toString());
        }
        ctx.close();
    }
}
