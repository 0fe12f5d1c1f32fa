package io.xrpc.benchmark.streams;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.xrpc.benchmark.streams.StreamBenchService.Tick;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.transport.netty.NettyTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The practical limit of streaming on this machine: length-prefixed frames as large as XRpc's
 * frame of a tick, no serialization, Netty's writability as the only flow control, the same event
 * loops. Frame: length (4), kind (1), sequence (8), sent-at nanos (8), padding.
 */
final class RawNettyStreams implements StreamContender {
    /** Bytes of XRpc's frame of one tick: its header and the tick as kryo writes it. */
    static final int TICK_FRAME =
            ProtocolConstants.HEADER_LENGTH + kryoBytes(new Tick(1, System.nanoTime(), "ACME", 100.5));

    private static final byte STREAM = 'S';
    private static final byte TICK = 'T';
    private static final byte END = 'E';
    private static final byte CHUNK = 'U';
    private static final byte FINISH = 'F';
    private static final byte COUNTED = 'C';

    private static int kryoBytes(Tick t) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new KryoSerializerProvider()
                    .create(ClassAllowList.withDefaults(), ReadLimits.defaults())
                    .writeResult(t, out);
            return out.size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A frame of {@code kind} as long as a tick's, or {@code extra} bytes long for a chunk. */
    private static ByteBuf frame(Channel ch, byte kind, long seq, long sent, int size) {
        int body = Math.max(17, size - 4);
        ByteBuf b = ch.alloc().ioBuffer(4 + body);
        return b.writeInt(body).writeByte(kind).writeLong(seq).writeLong(sent).writeZero(body - 17);
    }

    @Override
    public AutoCloseable startServer(int[] port) throws Exception {
        EventLoopGroup group = NettyTransport.newEventLoopGroup(
                Runtime.getRuntime().availableProcessors(), "raw-stream-server", false);
        Channel server = new ServerBootstrap()
                .group(group)
                .channel(NettyTransport.serverChannelType())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(16 << 20, 0, 4, 0, 4), new ServerSide());
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
        port[0] = ((InetSocketAddress) server.localAddress()).getPort();
        return () -> {
            server.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        };
    }

    /** Streams ticks while the channel is writable, counts uploads, echoes ticks. */
    private static final class ServerSide extends ChannelInboundHandlerAdapter {
        private long toSend;
        private long seq;
        private long uploaded;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                byte kind = in.readByte();
                if (kind == STREAM) {
                    toSend = in.readLong();
                    seq = 0;
                    send(ctx);
                } else if (kind == CHUNK) {
                    uploaded += in.readableBytes() + 1 - 17;
                } else if (kind == FINISH) {
                    ctx.writeAndFlush(frame(ctx.channel(), COUNTED, uploaded, 0, TICK_FRAME));
                    uploaded = 0;
                } else if (kind == TICK) {
                    ctx.write(frame(ctx.channel(), TICK, in.readLong(), in.readLong(), TICK_FRAME), ctx.voidPromise());
                }
            } finally {
                in.release();
            }
        }

        private void send(ChannelHandlerContext ctx) {
            Channel ch = ctx.channel();
            int n = 0;
            while (seq < toSend && ch.isWritable()) {
                ctx.write(frame(ch, TICK, seq++, System.nanoTime(), TICK_FRAME), ctx.voidPromise());
                if (++n == 64) {
                    ctx.flush();
                    n = 0;
                }
            }
            if (seq == toSend) {
                seq++;
                ctx.write(frame(ch, END, 0, 0, TICK_FRAME), ctx.voidPromise());
            }
            ctx.flush();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable() && seq < toSend) {
                send(ctx);
            }
        }
    }

    @Override
    public Streamer connect(int port) throws Exception {
        EventLoopGroup group = NettyTransport.newEventLoopGroup(1, "raw-stream-client", true);
        ClientSide side = new ClientSide();
        Channel ch = new Bootstrap()
                .group(group)
                .channel(NettyTransport.channelType())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(new LengthFieldBasedFrameDecoder(16 << 20, 0, 4, 0, 4), side);
                    }
                })
                .connect("127.0.0.1", port)
                .sync()
                .channel();
        return new Streamer() {
            @Override
            public void serverStream(int count, Arrivals arrivals) {
                side.start(arrivals, -1);
                ch.writeAndFlush(frame(ch, STREAM, count, 0, 0));
            }

            @Override
            public long upload(int count, int chunkBytes) throws Exception {
                CompletableFuture<Long> counted = side.expectCount();
                side.send(
                        ch, count, i -> frame(ch, CHUNK, i, 0, 4 + 17 + chunkBytes), () -> frame(ch, FINISH, 0, 0, 0));
                return counted.get(10, TimeUnit.MINUTES);
            }

            @Override
            public void echo(int count, Arrivals arrivals) {
                side.start(arrivals, count);
                side.send(ch, count, i -> frame(ch, TICK, i, System.nanoTime(), TICK_FRAME), null);
            }

            @Override
            public void close() {
                ch.close().syncUninterruptibly();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        };
    }

    /** Counts what arrives; wakes a writer when the channel drains. */
    private static final class ClientSide extends ChannelInboundHandlerAdapter {
        private volatile Arrivals arrivals;
        private volatile long expected;
        private volatile CompletableFuture<Long> count;
        private long seen;

        /** The next stream: an echo ({@code n} ticks back) or, with {@code n} < 0, a server stream ending with END. */
        void start(Arrivals a, long n) {
            seen = 0;
            expected = n;
            arrivals = a;
        }

        CompletableFuture<Long> expectCount() {
            count = new CompletableFuture<>();
            return count;
        }

        private Channel sending; // event loop only, as the rest of the sending
        private long next;
        private long toSend;
        private LongFunction<ByteBuf> make;
        private Supplier<ByteBuf> last;

        /** Sends {@code count} frames from the event loop while the channel is writable, then {@code last}. */
        void send(Channel ch, long count, LongFunction<ByteBuf> make, Supplier<ByteBuf> last) {
            ch.eventLoop().execute(() -> {
                sending = ch;
                next = 0;
                toSend = count;
                this.make = make;
                this.last = last;
                pump();
            });
        }

        private void pump() {
            Channel ch = sending;
            if (ch == null) {
                return;
            }
            int n = 0;
            while (next < toSend && ch.isWritable()) {
                ch.write(make.apply(next++), ch.voidPromise());
                if (++n == 64) {
                    ch.flush();
                    n = 0;
                }
            }
            if (next == toSend) {
                if (last != null) {
                    ch.write(last.get(), ch.voidPromise());
                }
                sending = null;
            }
            ch.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                pump();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                byte kind = in.readByte();
                long seq = in.readLong();
                long sent = in.readLong();
                if (kind == TICK) {
                    arrivals.arrived(sent);
                    if (++seen == expected) {
                        arrivals.ended(null); // an echo ends with its last tick back
                    }
                } else if (kind == END) {
                    arrivals.ended(null);
                } else if (kind == COUNTED) {
                    count.complete(seq);
                }
            } finally {
                in.release();
            }
        }
    }
}
