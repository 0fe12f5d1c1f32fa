package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Tells a connection's protocol from its first bytes, after TLS when the server has it: XRpc's
 * magic ({@code "XR"}) leaves the pipeline as it is; the HTTP/2 connection preface
 * ({@code "PRI "}) puts Netty's HTTP/2 codec in front of the XRpc handlers; an HTTP/1.1 request
 * line (an upper-case method and a space) puts Netty's HTTP/1.1 codec there. Anything else goes on
 * to the frame decoder, which closes the connection naming the wrong magic. It decides on the
 * first byte for XRpc, so XRpc connections pay one look and nothing after.
 */
final class ProtocolSniffer extends ByteToMessageDecoder {
    private static final int LOOK = 4;

    private final NettyServerTransport server;
    private final HttpJson json;
    private final GrpcWire grpc;

    ProtocolSniffer(NettyServerTransport server, HttpJson json, GrpcWire grpc) {
        this.grpc = grpc;
        this.server = server;
        this.json = json;
    }

    private ScheduledFuture<?> timer;

    /** A peer that sends a byte or three and waits (possible inside TLS) is closed at the frame timeout. */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor()
                .schedule(
                        () -> {
                            ctx.close();
                        },
                        server.settings().frameTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int at = in.readerIndex();
        if (in.getByte(at) == 'X' || !isUpper(in.getByte(at))) {
            ctx.pipeline().remove(this); // XRpc, or garbage the frame decoder names
            return;
        }
        int n = Math.min(in.readableBytes(), LOOK);
        for (int i = 1; i < n; i++) {
            byte b = in.getByte(at + i);
            if (b == ' ') {
                break;
            }
            if (!isUpper(b)) {
                ctx.pipeline().remove(this);
                return;
            }
        }
        if (in.readableBytes() < LOOK) {
            return; // "PO", "PR": not yet told apart
        }
        ChannelPipeline p = ctx.pipeline();
        if (in.getByte(at) == 'P'
                && in.getByte(at + 1) == 'R'
                && in.getByte(at + 2) == 'I'
                && in.getByte(at + 3) == ' ') {
            Http2Calls calls = new Http2Calls(server, json, grpc);
            p.addAfter(
                    ctx.name(),
                    "http2",
                    Http2FrameCodecBuilder.forServer()
                            .initialSettings(Http2Settings.defaultSettings()
                                    .maxConcurrentStreams(Http2Calls.MAX_CONCURRENT_STREAMS)
                                    .maxHeaderListSize(Http1Calls.MAX_HEADER_SIZE)
                                    .initialWindowSize(Http2Calls.WINDOW))
                            .validateHeaders(true)
                            .build());
            p.addAfter("http2", "http-calls", calls);
        } else {
            Http1Calls calls = new Http1Calls(server, json);
            p.addAfter(ctx.name(), "http-clock", calls.clock());
            p.addAfter(
                    "http-clock",
                    "http1",
                    new HttpServerCodec(Http1Calls.MAX_INITIAL_LINE, Http1Calls.MAX_HEADER_SIZE, 8192));
            // Requests the codec decoded from bytes already read wait here while reading is held
            // (pipelining's bound): they are passed on one per read, not all at once.
            p.addAfter("http1", "http-flow", new FlowControlHandler());
            p.addAfter("http-flow", "http-calls", calls);
        }
        p.remove(this); // what it holds goes on to the codec
    }

    private static boolean isUpper(byte b) {
        return b >= 'A' && b <= 'Z';
    }
}
