package io.xrpc.transport.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.xrpc.protocol.codec.RpcCodec;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reacts to {@link io.netty.handler.timeout.IdleStateHandler}'s reader-idle events on both sides:
 * when nothing was read for one interval it sends a ping (which the peer answers with a pong, so
 * a live peer is heard from), again after two, and after three the peer is presumed dead and the
 * connection closed, unless this side itself stopped reading while the peer's calls run: then it
 * goes on pinging every interval and does not close, and those intervals are not counted later (a
 * peer that does not read what it is sent, and so keeps the server from reading, is closed all the
 * same, after three intervals of its own). Watching reads only keeps the idle handler off the write path: watching writes made it
 * allocate a promise and a listener for every frame written. {@code @Sharable}: every pipeline uses
 * {@link #INSTANCE}; the count of silent intervals lives on the channel.
 */
@ChannelHandler.Sharable
final class HeartbeatHandler extends ChannelInboundHandlerAdapter {
    static final HeartbeatHandler INSTANCE = new HeartbeatHandler();
    /** Silent intervals after which the peer is presumed dead. */
    static final int SILENT_INTERVALS = 3;

    private static final Logger log = LoggerFactory.getLogger(HeartbeatHandler.class);
    private static final AttributeKey<int[]> SILENT = AttributeKey.valueOf("xrpc.silentIntervals");

    /** The idle handler a pipeline needs before this one: reader-idle events every interval. */
    static IdleStateHandler idleHandler(long intervalMillis) {
        return new IdleStateHandler(intervalMillis, 0, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent e) {
            if (e.state() == IdleState.READER_IDLE) {
                int[] silent = ctx.channel().attr(SILENT).get();
                if (silent == null) {
                    silent = new int[1];
                    ctx.channel().attr(SILENT).set(silent);
                }
                silent[0] = e.isFirst() ? 1 : silent[0] + 1; // event loop only
                // While we stopped reading (calls of this peer still run) the silence is ours, not
                // the peer's: keep pinging, so the peer hears from us and a dead peer still fails
                // our writes, but do not close.
                boolean paused =
                        !ctx.channel().config().isAutoRead() && ctx.channel().isWritable();
                if (paused) {
                    silent[0] = 0; // nor does it count later, once the peer has to answer for itself
                }
                if (paused || silent[0] < SILENT_INTERVALS) {
                    ctx.writeAndFlush(RpcCodec.encodePing(ctx.alloc()), ctx.voidPromise());
                    return;
                }
                log.warn(
                        "Closing {}: nothing received for three heartbeat intervals, peer presumed dead",
                        ctx.channel());
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
