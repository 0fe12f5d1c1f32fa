package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import io.xrpc.internal.LogLimiter;
import io.xrpc.protocol.codec.ErrorCodec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's caps on open connections, in all and per remote address. A connection over a cap is
 * refused, and each refusal logs one line naming the peer and the limit (through a
 * {@link LogLimiter}, so a flood of connections cannot flood the log).
 */
final class ConnectionLimits {
    private static final Logger log = LoggerFactory.getLogger(ConnectionLimits.class);

    private final int max;
    private final int maxPerAddress;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final LogLimiter refusals = new LogLimiter(log, "connections refused");

    /** @param max connections in all (at least 1); @param maxPerAddress per remote address, 0 for no cap */
    ConnectionLimits(int max, int maxPerAddress) {
        this.max = max;
        this.maxPerAddress = maxPerAddress;
    }

    /**
     * Counts a new connection until it closes; returns why it is refused instead, or null.
     *
     * @param makeRoom at the cap, closes a connection that matters less (one not authenticated)
     *                 and returns true, or returns false; null when none may be closed. The count
     *                 exceeds the cap by the closing ones until they are closed.
     */
    String admit(Channel ch, BooleanSupplier makeRoom) {
        if (open.incrementAndGet() > max && (makeRoom == null || !makeRoom.getAsBoolean())) {
            open.decrementAndGet();
            return "it has " + max + " connections open, its limit (maxConnections)";
        }
        InetAddress address = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (maxPerAddress > 0 && address != null) {
            AtomicInteger n = perAddress.compute(address, (k, v) -> {
                AtomicInteger c = v == null ? new AtomicInteger() : v;
                c.incrementAndGet();
                return c;
            });
            if (n.get() > maxPerAddress) {
                release(address);
                open.decrementAndGet();
                return "it has " + maxPerAddress + " connections open from " + address.getHostAddress()
                        + ", its limit per address (maxConnectionsPerAddress)";
            }
            ch.closeFuture().addListener(f -> release(address));
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        return null;
    }

    private void release(InetAddress address) {
        perAddress.computeIfPresent(address, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
    }

    void logRefusal(SocketAddress peer, String why) {
        refusals.warn("Refusing connection from {}: {}", peer, why);
    }

    /**
     * Writes a refusal (a GOAWAY the client reads before giving up on the connection), stops
     * writing, and closes a second later, leaving the client time to read it.
     */
    static void sendRefusal(ChannelHandlerContext ctx, String message) {
        ctx.writeAndFlush(ErrorCodec.encodeRefusal(ctx.alloc(), message)).addListener(f -> {
            if (ctx.channel() instanceof DuplexChannel d) {
                d.shutdownOutput();
            }
        });
        ctx.executor()
                .schedule(
                        () -> {
                            ctx.close();
                        },
                        1,
                        TimeUnit.SECONDS);
    }

    /**
     * Refuses a connection over a limit: a GOAWAY saying {@code why}, inside TLS when the server has it,
     * then this side's end of the stream.
     * Nothing the peer sent is processed; it is read and dropped until the peer closes (or a
     * second passes), because closing with unread bytes would make the kernel reset the
     * connection, and a reset can reach the client before the GOAWAY does.
     */
    void refuse(Channel ch, SslContext tls, Object server, String why) {
        logRefusal(ch.remoteAddress(), why);
        if (tls != null) {
            // Said inside TLS: the refusal below waits in the handler until the handshake is done.
            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
        }
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                sendRefusal(ctx, "server " + server + " refused the connection: " + why);
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg); // dropped unread
            }
        });
    }
}
