package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.ShortStringCache;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Serves the requests of one connection. Not sharable: it owns the connection's write queue and
 * the state that keeps one peer from costing more than its own connection, each policy in a class
 * of its own: {@link RequestRouter} answers what cannot run on the event loop, without
 * deserializing anything; {@link Admission} decides when a routed call may run (bounded output,
 * expensive reads, the adaptive limit); {@link ResponsePump} has results encoded as there is room;
 * {@link ConnectionAuthentication} holds the connection to its authentication deadline and
 * refusals; {@link MalformedStrikes} closes a connection that keeps sending garbage. Any failure of
 * one request is answered on that request; only a framing error closes the connection.
 *
 * <p>While its outbound bytes are over the high mark (a peer that does not read), nothing more is
 * read from it. Encoded output for one peer thus stays near the high mark: beyond it by one
 * frame, or by the frames of calls whose responses turned out larger than their method's usual (a
 * method's first calls, before any of its sizes is known).
 */
final class ServerChannelHandler extends ChannelInboundHandlerAdapter {
    /** How long a connection closed on purpose has to read its GOAWAY before it is closed. */
    private static final long CLOSE_AFTER_GOAWAY_SECONDS = 2;

    private final NettyServerTransport server;
    private final RequestRouter router;
    private final LinkDelay delay = new LinkDelay();
    /** The service keys and signatures this connection named lately. Event loop only. */
    final ShortStringCache names = new ShortStringCache();
    /**
     * Calls of this connection read and not yet finished, by request id: what a CANCEL looks up.
     * Bounded by the calls in flight; per connection, so a peer reaches only its own calls.
     */
    final ConcurrentHashMap<Long, ServerCall> inFlight = new ConcurrentHashMap<>();

    final MalformedStrikes strikes = new MalformedStrikes(this);
    /** Stream calls of this connection routed and not yet finished: at most {@link #MAX_STREAMS}. */
    final AtomicInteger openStreams = new AtomicInteger();
    /** Stream calls one connection may have open at once (HTTP/2's usual concurrent-stream limit). */
    static final int MAX_STREAMS = 100;
    /** Set once this side decided to close the connection with a GOAWAY; nothing more of it runs. */
    private final AtomicBoolean closing = new AtomicBoolean();

    private volatile ChannelHandlerContext ctx;
    private FrameDecoder decoder;
    volatile WriteQueue writes;
    volatile Admission admission;
    volatile ResponsePump pump;
    /** Null when the server has no authenticator. */
    volatile ConnectionAuthentication auth;

    volatile Endpoint peer;
    /** The client's verified chain, read from the TLS session at the first request that asks. */
    private volatile List<X509Certificate> peerCertificates;

    ServerChannelHandler(NettyServerTransport server, RequestRouter router) {
        this.server = server;
        this.router = router;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            peer = new Endpoint(
                    a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString(),
                    Math.max(1, a.getPort()));
        }
        decoder = ctx.pipeline().get(FrameDecoder.class);
        ResponsePump p = new ResponsePump(server, ctx.channel(), ctx.executor());
        writes = new WriteQueue(ctx.channel(), p::afterWrite);
        p.writes(writes);
        pump = p;
        admission = new Admission(this, server, ctx.channel(), ctx.executor());
        this.ctx = ctx;
        if (server.settings().authenticates()) {
            ConnectionAuthentication a = new ConnectionAuthentication(this, server, ctx.executor());
            auth = a;
            a.start();
            ctx.channel().closeFuture().addListener(f -> a.closed());
        }
        super.channelActive(ctx);
    }

    /**
     * The certificate chain the client presented in this connection's TLS handshake, which the
     * server verified; empty for plaintext or when it presented none (any thread, after a request
     * was read, so after the handshake).
     */
    List<X509Certificate> peerCertificates() {
        List<X509Certificate> chain = peerCertificates;
        if (chain == null) {
            chain = List.of();
            SslHandler tls = ctx.pipeline().get(SslHandler.class);
            if (tls != null) {
                try {
                    List<X509Certificate> certs = new ArrayList<>();
                    for (Certificate c : tls.engine().getSession().getPeerCertificates()) {
                        if (c instanceof X509Certificate x) {
                            certs.add(x);
                        }
                    }
                    chain = List.copyOf(certs);
                } catch (SSLPeerUnverifiedException none) {
                    // it presented no certificate (client-auth optional or none)
                }
            }
            peerCertificates = chain;
        }
        return chain;
    }

    /** Whether a call of this connection passed the authenticator, or the server has none. */
    boolean isAuthenticated() {
        ConnectionAuthentication a = auth;
        return a == null || a.isAuthenticated();
    }

    /** The connection authenticated for the first time: its next large requests may use the whole memory budget. */
    void authenticatedOnce() {
        if (decoder != null) {
            decoder.budget(server.memoryBudget());
        }
    }

    /** Whether this side is closing the connection with a GOAWAY. */
    boolean isClosing() {
        return closing.get();
    }

    boolean isActive() {
        return ctx.channel().isActive();
    }

    /** Whether a frame of this connection is arriving now. Event loop. */
    boolean isReceiving() {
        return decoder != null && decoder.isReceiving();
    }

    /** A request of this connection is with the authenticator, or waits for admission. */
    boolean callBeingDecided() {
        return admission.callBeingDecided();
    }

    /**
     * Closes the connection for {@code why}, unless it is closing already: reads no more from the
     * peer, logs it, runs {@code first} (a count) and sends a GOAWAY of {@code status} after every
     * answer queued before it, then this side's end of the stream; the connection closes
     * {@link #CLOSE_AFTER_GOAWAY_SECONDS} later, so that the peer reads the GOAWAY rather than a
     * reset, and whether or not it ever reads it (any thread). Returns whether it closes for this.
     */
    boolean closeWithGoAway(RpcStatus status, String why, Runnable first) {
        if (!closing.compareAndSet(false, true)) {
            return false;
        }
        if (first != null) {
            first.run();
        }
        server.closeLog().warn("Closing connection from {}: {}", peer, why);
        String message = "server " + server.endpoint() + " closed the connection: " + why;
        ChannelHandlerContext c = ctx;
        if (c.executor().inEventLoop()) {
            c.channel().config().setAutoRead(false);
        } else {
            c.executor().execute(() -> c.channel().config().setAutoRead(false));
        }
        c.executor()
                .schedule(
                        () -> {
                            c.close();
                        },
                        CLOSE_AFTER_GOAWAY_SECONDS,
                        TimeUnit.SECONDS);
        writes.enqueue(new WriteQueue.Tracked() {
            @Override
            public ByteBuf takeFrame() {
                return ErrorCodec.encodeGoAway(c.alloc(), status, message);
            }

            @Override
            public void operationComplete(ChannelFuture f) {
                if (c.channel() instanceof DuplexChannel d) {
                    d.shutdownOutput();
                }
            }
        });
        return true;
    }

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
            case STREAM_MESSAGE, STREAM_END, CREDIT -> onStream(frame);
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

    /** A frame of a stream call: routed by its id to the call, or dropped when the call is over. */
    private void onStream(Frame frame) {
        ServerCall c = inFlight.get(frame.requestId());
        ServerStream s = c == null ? null : c.stream;
        if (s == null) {
            frame.release(); // ended already (its answer crossed this frame), or no stream of this connection
            return;
        }
        switch (frame.type()) {
            case STREAM_MESSAGE -> s.onMessage(frame); // the stream's now
            case STREAM_END -> {
                s.onEnd(frame);
                frame.release();
            }
            default -> {
                s.onCredit(frame);
                frame.release();
            }
        }
    }

    /** Ends every stream of this connection still open, {@code UNAVAILABLE}: the server is going (event loop). */
    void endStreams(String why) {
        for (ServerCall c : inFlight.values()) {
            if (c.stream != null && c.stream.accepted()) {
                c.answerError(RpcStatus.UNAVAILABLE, why);
            }
        }
    }

    /** Runs {@code task} on this connection's event loop. */
    void runOnEventLoop(Runnable task) {
        ctx.executor().execute(task);
    }

    private void onRequest(Frame frame) {
        long now = System.nanoTime();
        int waited = frame.isTimestamped() ? delay.waited(frame.sentAtMillis(), now) : 0;
        ConnectionAuthentication a = auth;
        if (a != null && a.takesNoMoreRequests()) {
            router.refuse(
                    this,
                    frame,
                    RpcStatus.UNAUTHENTICATED,
                    "server " + server.endpoint() + ": this connection"
                            + " carried no authenticated call within "
                            + server.settings().authenticationTimeout().toMillis()
                            + " ms of opening (authenticationTimeout) and takes no more requests; it closes; request not run");
            return;
        }
        if (inFlight.containsKey(frame.requestId())) {
            // An honest client never reuses an id in flight; a second call under it would orphan
            // the first, which then outlives every frame and close that names it.
            String why = "request id " + frame.requestId() + " is already in use on this connection";
            router.refuse(
                    this,
                    frame,
                    RpcStatus.SERIALIZATION_ERROR,
                    "server " + server.endpoint() + ": " + why + "; not run");
            strikes.malformed(why);
            return;
        }
        ServerCall call = router.route(this, frame, now, waited);
        if (call == null) {
            return; // answered already
        }
        call.tracked();
        admission.offer(call);
    }

    /** Reads again if nothing of this side's holds it: the channel is writable and no call waits for admission. */
    void resumeReadingIfFree() {
        if (ctx.channel().isWritable() && !admission.isBacklogged()) {
            resumeReading();
        }
    }

    /** Stops reading from the peer: the frame clock stands still; heartbeats go on pinging, not closing. */
    void pauseReading() {
        ctx.channel().config().setAutoRead(false);
    }

    /**
     * Whether a protocol in front of this handler (HTTP/1.1 pipelining) holds reading for reasons
     * of its own: then nothing here resumes it. Event loop.
     */
    BooleanSupplier readingHeld;

    /** Reads from the peer again, unless this side is closing. */
    void resumeReading() {
        if (closing.get() || readingHeld != null && readingHeld.getAsBoolean()) {
            return;
        }
        if (decoder != null) {
            decoder.readingResumed();
        }
        ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            writes.resume();
            pump.writable();
            admission.admitBacklog();
            if (!admission.isBacklogged()) {
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
        admission.abandon();
        pump.pump(); // drops parked results without encoding them
        for (ServerCall c : inFlight.values()) {
            if (c.stream != null) {
                c.cancel(); // a stream lives as long as its connection: its producer stops here
            }
        }
        super.channelInactive(ctx);
    }

    /** Answers every request still waiting for admission UNAVAILABLE (shutdown, close); event loop. */
    void abandonBacklog() {
        Admission a = admission;
        if (a != null) {
            a.abandon();
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
            server.closeLog()
                    .warn(
                            "Closing connection from {}: {}",
                            peer,
                            cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage());
        } else {
            server.closeLog().warn("Closing connection from {} after an error: {}", peer, cause.toString());
        }
        ctx.close();
    }
}
