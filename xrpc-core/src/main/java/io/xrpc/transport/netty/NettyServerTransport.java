package io.xrpc.transport.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.xrpc.common.Endpoint;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.server.ServiceDispatcher;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty side of a server: accepts connections, frames them and feeds requests to the
 * {@link ServiceDispatcher} on a bounded business executor. Created and driven by
 * {@link io.xrpc.server.RpcServer}.
 */
public final class NettyServerTransport {

    /** What the transport needs from the server's configuration. */
    public record Settings(String host, int port, int ioThreads, int maxFrameLength, Duration heartbeatInterval,
                           int compressThreshold, int executorThreads, int executorQueue) {
    }

    private final Settings settings;
    private final ServiceDispatcher dispatcher;
    private final SerializerRegistry serializers;
    private final CompressorRegistry compressors;
    private final ThreadPoolExecutor executor;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private ChannelGroup children;
    private Endpoint endpoint;

    public NettyServerTransport(Settings settings, ServiceDispatcher dispatcher, SerializerRegistry serializers,
                                CompressorRegistry compressors, ThreadPoolExecutor executor) {
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.serializers = serializers;
        this.compressors = compressors;
        this.executor = executor;
    }

    /** Binds and returns the bound address (the real port when 0 was asked for). */
    public Endpoint start() throws InterruptedException {
        boss = NettyTransport.newEventLoopGroup(1, "xrpc-server-accept", false);
        workers = NettyTransport.newEventLoopGroup(settings.ioThreads(), "xrpc-server-io", false);
        children = new DefaultChannelGroup("xrpc-server-connections", GlobalEventExecutor.INSTANCE);
        long hb = settings.heartbeatInterval().toMillis();
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NettyTransport.serverChannelType())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.pipeline()
                                .addLast("idle", new IdleStateHandler(3 * hb, hb, 0, TimeUnit.MILLISECONDS))
                                .addLast("frames", new io.xrpc.protocol.codec.FrameDecoder(
                                        settings.maxFrameLength(), compressors))
                                .addLast("heartbeat", HeartbeatHandler.INSTANCE)
                                .addLast("requests", new ServerChannelHandler(NettyServerTransport.this));
                    }
                });
        try {
            serverChannel = b.bind(settings.host(), settings.port()).sync().channel();
        } catch (InterruptedException | RuntimeException e) {
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        InetSocketAddress local = (InetSocketAddress) serverChannel.localAddress();
        endpoint = new Endpoint(settings.host(), local.getPort());
        return endpoint;
    }

    /**
     * Stops accepting and tells every client GOAWAY, so they send no new calls here and close
     * their connections once their calls are answered; requests that were already on the wire
     * are answered UNAVAILABLE (safe to retry elsewhere). Waits up to {@code grace} for the calls
     * in flight and for clients to close, then closes what is left and stops the threads.
     *
     * @return the number of calls still unanswered when the grace period ended
     */
    public int close(Duration grace) throws InterruptedException {
        draining = true;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        if (children != null) {
            for (Channel ch : children) {
                ch.writeAndFlush(RpcCodec.encodeControl(ch.alloc(), MessageType.GOAWAY));
            }
        }
        long deadline = System.nanoTime() + grace.toNanos();
        synchronized (inFlight) {
            while (inFlight.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(inFlight, left);
            }
        }
        int unanswered = inFlight.get();
        if (children != null) {
            // Clients close their side once drained; give them what is left of the grace.
            long left = Math.max(0, deadline - System.nanoTime());
            children.newCloseFuture().await(TimeUnit.NANOSECONDS.toMillis(left) + 1, TimeUnit.MILLISECONDS);
            // Responses queued just now are flushed by their write task before the close runs.
            for (Channel ch : children) {
                ch.eventLoop().execute(ch::close);
            }
            children.newCloseFuture().await(5, TimeUnit.SECONDS);
        }
        for (Runnable dropped : executor.shutdownNow()) {
            if (dropped instanceof ServerCall call) {
                call.abandon();
            }
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        executor.awaitTermination(5, TimeUnit.SECONDS);
        return unanswered;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** Number of open client connections. */
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
    public int inFlight() {
        return inFlight.get();
    }

    ServiceDispatcher dispatcher() {
        return dispatcher;
    }

    SerializerRegistry serializers() {
        return serializers;
    }

    CompressorRegistry compressors() {
        return compressors;
    }

    ExecutorService executor() {
        return executor;
    }

    int executorThreads() {
        return executor.getMaximumPoolSize();
    }

    int executorQueue() {
        return settings.executorQueue();
    }

    int maxFrameLength() {
        return settings.maxFrameLength();
    }

    int compressThreshold() {
        return settings.compressThreshold();
    }
}
