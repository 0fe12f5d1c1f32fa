package io.xrpc.transport.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.xrpc.protocol.codec.RpcCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reacts to {@link io.netty.handler.timeout.IdleStateHandler} on both sides: when nothing was
 * written for an interval it sends a ping (which the peer answers with a pong), and when nothing
 * was read for three intervals the peer is presumed dead and the connection closed, unless the
 * server itself stopped reading while the peer's calls run (a peer that does not read what it is
 * sent, and so keeps the server from reading, is closed all the same). Stateless
 * and {@code @Sharable}: every pipeline uses {@link #INSTANCE}.
 */
@ChannelHandler.Sharable
final class HeartbeatHandler extends ChannelInboundHandlerAdapter {
    static final HeartbeatHandler INSTANCE = new HeartbeatHandler();

    private static final Logger log = LoggerFactory.getLogger(HeartbeatHandler.class);

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent e) {
            if (e.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(RpcCodec.encodePing(ctx.alloc()), ctx.voidPromise());
            } else if (e.state() == IdleState.READER_IDLE) {
                if (!ctx.channel().config().isAutoRead() && ctx.channel().isWritable()) {
                    return; // we stopped reading (calls of this peer still run), not the peer its sending
                }
                log.warn("Closing {}: nothing received for three heartbeat intervals, peer presumed dead",
                        ctx.channel());
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
