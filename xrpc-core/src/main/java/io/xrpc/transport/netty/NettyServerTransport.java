package io.xrpc.transport.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.xrpc.common.Endpoint;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.internal.LogLimiter;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.transport.RequestHandler;
import io.xrpc.transport.Routes;
import io.xrpc.transport.ServerTransport;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty side of a server: accepts connections, frames them and feeds requests to the
 * {@link RequestHandler} on a bounded business executor. Created and driven by
 * {@link io.xrpc.server.RpcServer}.
 */
public final class NettyServerTransport implements ServerTransport {

    /** Whether each method's calls are admitted under an {@link AdaptiveLimit}. */
    boolean adaptiveConcurrency() {
        return settings.adaptiveConcurrency();
    }

    private static final Logger log = LoggerFactory.getLogger(NettyServerTransport.class);

    private final ServerTransport.Settings settings;
    /** HTTP/JSON calls on the same port, translated to and from XRpc frames. */
    private final HttpJson httpJson = new HttpJson(this);

    private final GrpcWire grpcWire = new GrpcWire(this);
    /** The server's TLS, or null for plaintext. */
    private final SslContext tls;

    private final Routes routes;
    private final RequestHandler requestHandler;
    private final SerializerRegistry serializers;
    private final CompressorRegistry compressors;
    /** Where calls run: {@link #pool}, or the application's executor. */
    private final Executor executor;
    /** The transport's own call threads; null when the application gave an executor. */
    private final CallPool pool;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConnectionLimits limits;
    private final RequestRouter router = new RequestRouter(this);
    private final Authentications authentications = new Authentications();
    private final LogLimiter closeLog = new LogLimiter(log, "connections closed on an error");
    /** Bytes of large requests arriving or waiting to run, over all connections. */
    private final MemoryBudget memoryBudget;
    /**
     * Together, connections that have not authenticated may hold at most this part (1/n) of the
     * memory budget, or one whole frame if that is more, in requests arriving or waiting: peers
     * without credentials that keep almost-whole large frames in flight cost only themselves.
     */
    static final int UNAUTHENTICATED_SHARE = 4;

    private final MemoryBudget unauthenticatedBudget;
    private final AtomicBoolean budgetFullLogged = new AtomicBoolean();
    private volatile boolean draining;

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private ChannelGroup children;
    private volatile Endpoint endpoint;

    public NettyServerTransport(
            ServerTransport.Settings settings,
            Routes routes,
            RequestHandler requestHandler,
            SerializerRegistry serializers,
            CompressorRegistry compressors) {
        this.settings = settings;
        this.routes = routes;
        this.requestHandler = requestHandler;
        this.serializers = serializers;
        this.compressors = compressors;
        this.pool = settings.executor() != null ? null : callPool(settings);
        this.executor = pool != null ? pool : settings.executor();
        this.limits = new ConnectionLimits(settings.maxConnections(), settings.maxConnectionsPerAddress());
        this.memoryBudget = new MemoryBudget(settings.maxRequestMemory());
        // At least one whole frame: a new connection's first call may be the largest there is.
        this.unauthenticatedBudget = memoryBudget.share(Math.max(
                memoryBudget.limit() / UNAUTHENTICATED_SHARE,
                settings.transport().maxFrameLength() + (long) ProtocolConstants.HEADER_LENGTH));
        this.tls = settings.transport().tls() == null
                ? null
                : NettyTls.serverContext(settings.transport().tls(), settings.http());
    }

    /** Binds and returns the bound address (the real port when 0 was asked for). */
    @Override
    public Endpoint start() throws InterruptedException {
        boss = NettyTransport.newEventLoopGroup(1, "xrpc-server-accept", false);
        workers = NettyTransport.newEventLoopGroup(settings.ioThreads(), "xrpc-server-io", false);
        children = new DefaultChannelGroup("xrpc-server-connections", GlobalEventExecutor.INSTANCE);
        long hb = settings.transport().heartbeatInterval().toMillis();
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NettyTransport.serverChannelType())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(
                                settings.transport().writeBufferLowWaterMark(),
                                settings.transport().writeBufferHighWaterMark()))
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        String refusal = limits.admit(
                                ch,
                                settings.authenticates()
                                        ? () -> authentications.evictOldest(ch, settings.maxConnections())
                                        : null);
                        if (refusal != null) {
                            limits.refuse(ch, tls, endpoint, refusal);
                            return;
                        }
                        children.add(ch);
                        ch.pipeline()
                                .addLast(
                                        "gate",
                                        new NettyTls.Gate(
                                                tls,
                                                String.valueOf(endpoint),
                                                settings.frameTimeout().toMillis()))
                                .addLast("idle", HeartbeatHandler.idleHandler(hb));
                        if (settings.http()) {
                            ch.pipeline()
                                    .addLast(
                                            "sniffer",
                                            new ProtocolSniffer(NettyServerTransport.this, httpJson, grpcWire));
                        }
                        ch.pipeline()
                                .addLast(
                                        "frames",
                                        new FrameDecoder(
                                                settings.transport().maxFrameLength(),
                                                settings.frameTimeout().toMillis(),
                                                settings.authenticates() ? unauthenticatedBudget : memoryBudget))
                                .addLast("heartbeat", HeartbeatHandler.INSTANCE)
                                .addLast("requests", new ServerChannelHandler(NettyServerTransport.this, router));
                    }
                });
        try {
            serverChannel = b.bind(settings.host(), settings.port()).sync().channel();
        } catch (Exception e) {
            // Netty rethrows a bind failure (a checked IOException of its own) without declaring it,
            // which once slipped past a narrower catch and left the non-daemon accept thread up.
            // Wait for the threads to end: a failed start must leave nothing that keeps the JVM up.
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            if (e instanceof InterruptedException) {
                throw (InterruptedException) e;
            }
            if (isAddressInUse(e)) {
                throw new IllegalStateException(
                        "cannot listen on " + settings.host() + ":" + settings.port()
                                + ": address already in use (another server holds the port; choose another port,"
                                + " or 0 for any free one)",
                        e);
            }
            throw new IllegalStateException(
                    "cannot listen on " + settings.host() + ":" + settings.port() + ": " + e, e);
        }
        InetSocketAddress local = (InetSocketAddress) serverChannel.localAddress();
        endpoint = new Endpoint(settings.host(), local.getPort());
        return endpoint;
    }

    /** Netty's native transports report a taken port as an IOException of their own, not a BindException. */
    private static boolean isAddressInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException
                    || t.getMessage() != null && t.getMessage().contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops accepting and tells every client GOAWAY, so they send no new calls here and close
     * their connections once their calls are answered; requests that were already on the wire
     * are answered UNAVAILABLE (safe to retry elsewhere). Waits up to {@code grace} for the calls
     * in flight and for clients to close, then closes what is left and stops the threads. An
     * interrupt cuts the waiting short, not the shutdown; the thread stays interrupted.
     *
     * @return the number of calls that were still running, and so unanswered, when it closed
     */
    @Override
    public int close(Duration grace) {
        boolean interrupted = false;
        draining = true;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        if (children != null) {
            for (Channel ch : children) {
                ch.writeAndFlush(RpcCodec.encodeControl(ch.alloc(), MessageType.GOAWAY));
                // Requests still waiting for admission will not run: tell their clients now, and
                // read on, so that requests already on the wire are answered too.
                ServerChannelHandler h = ch.pipeline().get(ServerChannelHandler.class);
                if (h != null) {
                    ch.eventLoop().execute(h::abandonBacklog);
                }
            }
        }
        long deadline = System.nanoTime() + grace.toNanos();
        synchronized (inFlight) {
            while (inFlight.get() > 0 && !interrupted) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlight, left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        // A client closes its connection once the GOAWAY has reached it and its calls are answered.
        // Closing first from here would make the kernel reset the connection under requests the
        // client sent before the GOAWAY reached it, and lose their answers (UNAVAILABLE, safe to retry).
        long left = deadline - System.nanoTime();
        if (children != null && left > 0 && !interrupted) {
            try {
                children.newCloseFuture().await(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        // Calls that never started are answered UNAVAILABLE (safe to retry elsewhere), and every
        // connection closes only after what is queued for it, those answers included, is written.
        if (pool != null) {
            pool.shutdownNow().forEach(NettyServerTransport::abandon);
        }
        if (children != null) {
            for (Channel ch : children) {
                ServerChannelHandler h = ch.pipeline().get(ServerChannelHandler.class);
                ch.eventLoop().execute(() -> {
                    if (h != null && h.writes != null) {
                        h.abandonBacklog();
                        h.endStreams(
                                "server " + endpoint + " shut down: its shutdown grace ended with the stream open");
                        h.writes.closeAfterFlush();
                    } else {
                        ch.close();
                    }
                });
            }
            children.newCloseFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        try {
            if (pool != null) {
                pool.awaitTermination(interrupted ? 0 : 5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return inFlight.get();
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    LogLimiter closeLog() {
        return closeLog;
    }

    /** Encoded output waiting to be read by clients, over all connections. */
    @Override
    public long pendingOutputBytes() {
        long n = 0;
        if (children != null) {
            for (Channel ch : children) {
                ServerChannelHandler h = ch.pipeline().get(ServerChannelHandler.class);
                if (h != null) {
                    n += h.pendingOutputBytes();
                }
            }
        }
        return n;
    }

    /** The connections waiting to authenticate, and the counts of refusals and closures. */
    Authentications authentications() {
        return authentications;
    }

    ServerTransport.Settings settings() {
        return settings;
    }

    /** Calls refused by the authenticator since start. */
    @Override
    public long authenticationRefusals() {
        return authentications.refusals();
    }

    /** Connections closed since start for carrying no authenticated call (timeout, refusals, eviction). */
    @Override
    public long authenticationClosures() {
        return authentications.closures();
    }

    MemoryBudget memoryBudget() {
        return memoryBudget;
    }

    /** The share of {@link #memoryBudget()} that connections not yet authenticated reserve from. */
    MemoryBudget unauthenticatedBudget() {
        return unauthenticatedBudget;
    }

    /** Bytes of large requests held now, arriving or waiting to run ({@link MemoryBudget}). */
    @Override
    public long requestMemoryBytes() {
        return memoryBudget.used();
    }

    /** A request was refused for the memory budget: said once, since a flood of them says nothing new. */
    void memoryBudgetFull() {
        if (budgetFullLogged.compareAndSet(false, true)) {
            log.warn(
                    "Server {} holds its memory budget for requests in transit ({} bytes, maxRequestMemory): requests"
                            + " over {} bytes that do not fit are answered SERVER_BUSY unread (logged once)",
                    endpoint,
                    memoryBudget.limit(),
                    MemoryBudget.FREE_BODY);
        }
    }

    @Override
    public boolean awaitConnectionsClosed(Duration max) throws InterruptedException {
        long nanos = max.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L ? Long.MAX_VALUE : max.toNanos();
        return children == null || children.newCloseFuture().await(nanos, TimeUnit.NANOSECONDS);
    }

    /** Number of open client connections. */
    @Override
    public int connectionCount() {
        return children == null ? 0 : children.size();
    }

    boolean isDraining() {
        return draining;
    }

    void callStarted() {
        inFlight.incrementAndGet();
    }

    void callFinished() {
        if (inFlight.decrementAndGet() == 0 && draining) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /** Calls accepted and not yet answered. */
    @Override
    public int inFlight() {
        return inFlight.get();
    }

    /** The table of exports each request's route is found in. */
    Routes routes() {
        return routes;
    }

    RequestHandler requestHandler() {
        return requestHandler;
    }

    SerializerRegistry serializers() {
        return serializers;
    }

    CompressorRegistry compressors() {
        return compressors;
    }

    /**
     * The transport's call threads: {@code executorThreads} threads at most (which end when idle for
     * a minute) and {@code executorQueue} calls waiting beside them; a call that fits neither is
     * answered {@code SERVER_BUSY}. As many threads as cores are kept awake for calls while they
     * come ({@link CallPool}).
     */
    private static CallPool callPool(ServerTransport.Settings s) {
        return new CallPool(
                s.executorThreads(),
                s.executorQueue(),
                Runtime.getRuntime().availableProcessors(),
                TimeUnit.SECONDS.toNanos(60),
                s.callThreads() != null ? s.callThreads() : NettyTransport.callThreadFactory("xrpc-server-call"),
                NettyServerTransport::abandon);
    }

    /** A call accepted as the server shut down, which will not run. */
    private static void abandon(Runnable dropped) {
        if (dropped instanceof ServerCall call) {
            call.abandon();
        }
    }

    Executor executor() {
        return executor;
    }

    /** Why a call the executor refused is answered SERVER_BUSY. */
    String busy(RejectedExecutionException e) {
        return pool != null
                ? "server " + endpoint() + " is busy: all " + settings.executorThreads() + " threads and "
                        + settings.executorQueue() + " queue slots in use"
                : "server " + endpoint() + " is busy: its executor refused the call (" + e.getMessage() + ")";
    }

    int executorThreads() {
        return settings.executorThreads();
    }

    int executorQueue() {
        return settings.executorQueue();
    }

    int maxFrameLength() {
        return settings.transport().maxFrameLength();
    }

    int writeBufferHighWaterMark() {
        return settings.transport().writeBufferHighWaterMark();
    }

    int compressThreshold() {
        return settings.transport().compressThreshold();
    }
}
