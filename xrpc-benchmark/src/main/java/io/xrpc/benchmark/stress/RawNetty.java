package io.xrpc.benchmark.stress;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.xrpc.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The practical limit of loopback request/response on this machine: length-prefixed frames
 * carrying as many bytes as XRpc's frames for the same call, no serialization, one multiplexed
 * connection, the same event loops. Frame: length (4), request id (8), response size (4), padding.
 */
public final class RawNetty {
    private RawNetty() {}

    /** Answers each request with a frame of the size it asks for. */
    public static final class Server implements AutoCloseable {
        private final EventLoopGroup group;
        private final Channel channel;

        public Server(int port, int ioThreads) throws InterruptedException {
            group = NettyTransport.newEventLoopGroup(ioThreads, "raw-server", false);
            channel = new ServerBootstrap()
                    .group(group)
                    .channel(NettyTransport.serverChannelType())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline()
                                    .addLast(
                                            new LengthFieldBasedFrameDecoder(16 << 20, 0, 4, 0, 4),
                                            new SimpleChannelInboundHandler<ByteBuf>() {
                                                @Override
                                                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
                                                    long id = in.readLong();
                                                    int size = in.readInt();
                                                    ByteBuf out = ctx.alloc().ioBuffer(16 + size);
                                                    out.writeInt(8 + size)
                                                            .writeLong(id)
                                                            .writeZero(size);
                                                    ctx.write(out, ctx.voidPromise());
                                                }

                                                @Override
                                                public void channelReadComplete(ChannelHandlerContext ctx) {
                                                    ctx.flush();
                                                }
                                            });
                        }
                    })
                    .bind("127.0.0.1", port)
                    .sync()
                    .channel();
        }

        public int port() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** One multiplexed connection; {@link #call} blocks like a synchronous RPC. */
    public static final class Client implements AutoCloseable {
        private final EventLoopGroup group;
        private final Channel channel;
        private final AtomicLong ids = new AtomicLong();
        private final ConcurrentHashMap<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();

        public Client(int port, int ioThreads) throws InterruptedException {
            group = NettyTransport.newEventLoopGroup(ioThreads, "raw-client", true);
            channel = new Bootstrap()
                    .group(group)
                    .channel(NettyTransport.channelType())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline()
                                    .addLast(
                                            new LengthFieldBasedFrameDecoder(16 << 20, 0, 4, 0, 4),
                                            new SimpleChannelInboundHandler<ByteBuf>() {
                                                @Override
                                                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
                                                    CompletableFuture<Void> f = pending.remove(in.readLong());
                                                    if (f != null) {
                                                        f.complete(null);
                                                    }
                                                }
                                            });
                        }
                    })
                    .connect("127.0.0.1", port)
                    .sync()
                    .channel();
        }

        /** Sends {@code requestBytes} and waits for a response of {@code responseBytes}. */
        public void call(int requestBytes, int responseBytes, long timeoutMillis) throws Exception {
            long id = ids.incrementAndGet();
            CompletableFuture<Void> f = new CompletableFuture<>();
            pending.put(id, f);
            ByteBuf out = channel.alloc().ioBuffer(16 + requestBytes);
            out.writeInt(12 + requestBytes)
                    .writeLong(id)
                    .writeInt(responseBytes)
                    .writeZero(requestBytes);
            channel.writeAndFlush(out, channel.voidPromise());
            try {
                f.get(timeoutMillis, TimeUnit.MILLISECONDS);
            } finally {
                pending.remove(id);
            }
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
