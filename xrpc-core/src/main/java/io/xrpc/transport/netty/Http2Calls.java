package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/2 on a server's port, behind Netty's HTTP/2 frame codec (which enforces the protocol's own
 * limits: concurrent streams, header list size, and its Rapid Reset and control-frame flood
 * guards): gathers each stream's request as {@link Http1Calls} does one HTTP/1.1 request, hands it
 * to the XRpc handlers behind this one through {@link HttpJson}, and answers on its stream. A stream
 * the peer resets cancels its call. Not sharable; event loop only.
 */
final class Http2Calls extends ChannelDuplexHandler {
    /** Streams a connection may have open at once: the XRpc stream limit, and HTTP/2's usual. */
    static final int MAX_CONCURRENT_STREAMS = ServerChannelHandler.MAX_STREAMS;
    /** Each stream's receive window: what a peer may send ahead before this side reads it. */
    static final int WINDOW = 64 * 1024;

    private final NettyServerTransport server;
    private final HttpJson json;
    private final int maxBody;
    private final long timeoutMillis;

    /** Requests arriving, by stream id. */
    private final Map<Integer, Arriving> arriving = new HashMap<>();
    /** Calls handed on and not yet answered, by XRpc request id. */
    private final Map<Long, Call> calls = new HashMap<>();

    private long nextId = 1;

    private final class Arriving {
        final Http2FrameStream stream;
        final Http2Headers headers;
        ByteBuf body;
        MemoryBudget reservedIn;
        long reserved;
        HttpJson.Answer refusal;
        ScheduledFuture<?> timer;

        Arriving(Http2FrameStream stream, Http2Headers headers, ChannelHandlerContext ctx) {
            this.stream = stream;
            this.headers = headers;
            this.body = ctx.alloc().buffer(0);
            this.timer = ctx.executor().schedule(() -> timedOut(ctx, this), timeoutMillis, TimeUnit.MILLISECONDS);
        }

        void drop() {
            if (body != null) {
                body.release();
                body = null;
            }
            if (reservedIn != null) {
                reservedIn.release(reserved);
                reservedIn = null;
                reserved = 0;
            }
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    private static final class Call {
        final Http2FrameStream stream;
        final boolean isVoid;
        final String origin;
        ScheduledFuture<?> deadline;
        boolean server;
        boolean sse;
        boolean accepted;
        int takenMessages;
        long takenBytes;

        Call(Http2FrameStream stream, boolean isVoid, String origin) {
            this.stream = stream;
            this.isVoid = isVoid;
            this.origin = origin;
        }
    }

    Http2Calls(NettyServerTransport server, HttpJson json) {
        this.server = server;
        this.json = json;
        this.maxBody = server.settings().transport().maxFrameLength();
        this.timeoutMillis = server.settings().frameTimeout().toMillis();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame h) {
                onHeaders(ctx, h);
            } else if (msg instanceof Http2DataFrame d) {
                onData(ctx, d);
            } else if (msg instanceof Http2ResetFrame r) {
                onReset(ctx, r);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHeaders(ChannelHandlerContext ctx, Http2HeadersFrame h) {
        int id = h.stream().id();
        Arriving a = arriving.get(id);
        if (a != null) {
            if (h.isEndStream()) {
                complete(ctx, a); // trailers end it
            }
            return;
        }
        a = new Arriving(h.stream(), h.headers(), ctx);
        arriving.put(id, a);
        String origin = header(h.headers(), "origin");
        if (!json.allowsOrigin(origin)) {
            a.refusal = HttpJson.error(
                    ctx.alloc(),
                    403,
                    "permission_denied",
                    "origin " + origin + " is not allowed to call this server (httpAllowedOrigins)");
        }
        String length = header(h.headers(), "content-length");
        if (length != null
                && length.length() < 19
                && !length.isEmpty()
                && length.chars().allMatch(Character::isDigit)
                && Long.parseLong(length) > maxBody) {
            a.refusal = HttpJson.error(
                    ctx.alloc(),
                    413,
                    "resource_exhausted",
                    "a body of " + length + " bytes is over the frame limit of " + maxBody + " (maxFrameLength)");
        }
        if (h.isEndStream()) {
            complete(ctx, a);
        }
    }

    private void onData(ChannelHandlerContext ctx, Http2DataFrame d) {
        Arriving a = arriving.get(d.stream().id());
        int flowed = d.initialFlowControlledBytes();
        if (flowed > 0) {
            // Read: the peer may send this much more (what is held is bounded below, not by the window).
            ctx.write(new DefaultHttp2WindowUpdateFrame(flowed).stream(d.stream()));
        }
        if (a == null) {
            return;
        }
        ByteBuf chunk = d.content();
        if (a.refusal == null && a.body != null && chunk.isReadable()) {
            int total = a.body.readableBytes() + chunk.readableBytes();
            if (total > maxBody) {
                a.refusal = HttpJson.error(
                        ctx.alloc(),
                        413,
                        "resource_exhausted",
                        "the body grew past the frame limit of " + maxBody + " bytes (maxFrameLength)");
                a.drop();
            } else if (total > MemoryBudget.FREE_BODY && !reserve(ctx, a, total)) {
                a.refusal = HttpJson.error(
                        ctx.alloc(),
                        503,
                        "unavailable",
                        "server " + server.endpoint() + " holds its memory budget for requests in transit"
                                + " in other requests; this body was not read");
                a.drop();
            } else {
                a.body.writeBytes(chunk);
            }
        }
        if (d.isEndStream()) {
            complete(ctx, a);
        } else if (flowed > 0) {
            ctx.flush();
        }
    }

    private boolean reserve(ChannelHandlerContext ctx, Arriving a, int total) {
        ServerChannelHandler h = ctx.pipeline().get(ServerChannelHandler.class);
        MemoryBudget budget = !server.settings().authenticates() || h != null && h.isAuthenticated()
                ? server.memoryBudget()
                : server.unauthenticatedBudget();
        if (a.reservedIn != null && a.reservedIn != budget || !budget.tryReserve(total - a.reserved)) {
            return false;
        }
        a.reservedIn = budget;
        a.reserved = total;
        return true;
    }

    private void complete(ChannelHandlerContext ctx, Arriving a) {
        arriving.remove(a.stream.id());
        ByteBuf body = a.body;
        a.body = null;
        if (body == null) {
            body = ctx.alloc().buffer(0);
        }
        long id = nextId++;
        String origin = header(a.headers, "origin");
        if (a.refusal != null) {
            body.release();
            a.drop();
            respond(ctx, a.stream, origin, false, a.refusal, ctx.newPromise());
            ctx.flush();
            return;
        }
        String method = String.valueOf(a.headers.method());
        if ("OPTIONS".equals(method)) {
            body.release();
            a.drop();
            respond(
                    ctx,
                    a.stream,
                    origin,
                    true,
                    new HttpJson.Answer(204, ctx.alloc().buffer(0), false),
                    ctx.newPromise());
            ctx.flush();
            return;
        }
        Http2Headers headers = a.headers;
        HttpJson.Translated t = json.request(
                ctx.alloc(), id, method, String.valueOf(headers.path()), name -> header(headers, name), body);
        a.drop();
        if (t.answer != null) {
            respond(ctx, a.stream, origin, false, t.answer, ctx.newPromise());
            ctx.flush();
            return;
        }
        Call c = new Call(a.stream, t.isVoid, origin);
        c.server = t.stream;
        c.sse = t.sse;
        calls.put(id, c);
        String path = String.valueOf(headers.path());
        int budget = t.budgetMillis;
        c.deadline = ctx.executor()
                .schedule(
                        () -> {
                            c.deadline = null;
                            if (calls.remove(id, c)) {
                                ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), id)); // its answer is not sent
                                HttpJson.Answer late = HttpJson.deadlinePassed(ctx.alloc(), path, budget);
                                if (c.accepted) {
                                    ctx.write(new DefaultHttp2DataFrame(
                                                    HttpJson.errorPart(ctx.alloc(), late, c.sse), true)
                                            .stream(c.stream));
                                } else {
                                    respond(ctx, c.stream, c.origin, false, late, ctx.newPromise());
                                }
                                ctx.flush();
                            }
                        },
                        budget,
                        TimeUnit.MILLISECONDS);
        ctx.fireChannelRead(t.frame);
    }

    private void onReset(ChannelHandlerContext ctx, Http2ResetFrame r) {
        Arriving a = arriving.remove(r.stream().id());
        if (a != null) {
            a.drop();
            return;
        }
        for (Map.Entry<Long, Call> e : calls.entrySet()) {
            if (e.getValue().stream.id() == r.stream().id()) {
                long id = e.getKey();
                Call c = calls.remove(id);
                if (c.deadline != null) {
                    c.deadline.cancel(false);
                }
                ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), id)); // the call is cancelled as any
                return;
            }
        }
    }

    private void timedOut(ChannelHandlerContext ctx, Arriving a) {
        a.timer = null;
        if (arriving.remove(a.stream.id(), a)) {
            server.closeLog()
                    .warn(
                            "Resetting a stream from {}: its HTTP/2 request did not arrive whole within {} ms (frameTimeout)",
                            ctx.channel().remoteAddress(),
                            timeoutMillis);
            a.drop();
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(a.stream));
        }
    }

    /** An XRpc frame written by the handlers behind: an answer to send on its stream, or dropped. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf f)) {
            ctx.write(msg, promise); // HTTP/2 frames of this handler's or the codec's
            return;
        }
        try {
            if (!f.isReadable()) {
                ctx.flush(); // a flush marker that carries a listener
                promise.trySuccess();
                return;
            }
            MessageType type = MessageType.fromCode(f.getByte(f.readerIndex() + 3));
            if (type == MessageType.GOAWAY) {
                promise.trySuccess();
                ctx.close(); // the codec sends GOAWAY and lets open streams finish
                return;
            }
            if (type == MessageType.CREDIT || type == MessageType.STREAM_MESSAGE || type == MessageType.STREAM_END) {
                promise.trySuccess();
                long id = HttpJson.requestId(f);
                Call c = calls.get(id);
                if (c != null && c.server) {
                    onStream(ctx, id, c, type, f);
                }
                return;
            }
            if (type != MessageType.RESPONSE) {
                promise.trySuccess();
                return;
            }
            Call c = calls.remove(f.getLong(f.readerIndex() + 8));
            if (c == null) {
                promise.trySuccess(); // its stream was reset, or its deadline answered it
                return;
            }
            if (c.deadline != null) {
                c.deadline.cancel(false);
            }
            HttpJson.Answer a = json.answer(ctx.alloc(), f, c.isVoid);
            respond(ctx, c.stream, c.origin, false, a, promise.isVoid() ? ctx.newPromise() : promise);
        } finally {
            f.release();
        }
    }

    /** A server stream's frame: its acceptance sends the headers, each message a DATA frame, its end the last. */
    private void onStream(ChannelHandlerContext ctx, long id, Call c, MessageType type, ByteBuf f) {
        if (type == MessageType.CREDIT) {
            if (!c.accepted) {
                c.accepted = true;
                Http2Headers h = new DefaultHttp2Headers().status("200");
                h.set("content-type", HttpJson.streamType(c.sse));
                h.set("cache-control", "no-cache");
                json.corsHeaders(c.origin, false, (k, v) -> h.set(k, v));
                ctx.write(new DefaultHttp2HeadersFrame(h, false).stream(c.stream));
            }
            return;
        }
        if (type == MessageType.STREAM_MESSAGE) {
            ByteBuf part = json.messagePart(ctx.alloc(), f, c.sse);
            int bytes = part.readableBytes();
            ctx.write(new DefaultHttp2DataFrame(part, false).stream(c.stream)).addListener(done -> {
                if (done.isSuccess()) {
                    taken(ctx, id, c, bytes);
                }
            });
            return;
        }
        calls.remove(id, c);
        if (c.deadline != null) {
            c.deadline.cancel(false);
        }
        ByteBuf last = json.endPart(ctx.alloc(), f, c.sse);
        ctx.write(new DefaultHttp2DataFrame(last == null ? ctx.alloc().buffer(0) : last, true).stream(c.stream));
    }

    /** The peer took one of a stream's messages: past half a window, the provider may send that much more. */
    private void taken(ChannelHandlerContext ctx, long id, Call c, int bytes) {
        c.takenMessages++;
        c.takenBytes += bytes;
        if (c.takenMessages >= ProtocolConstants.INITIAL_STREAM_MESSAGES / 2
                || c.takenBytes >= ProtocolConstants.INITIAL_STREAM_BYTES / 2) {
            int m = c.takenMessages;
            int b = (int) Math.min(c.takenBytes, Integer.MAX_VALUE);
            c.takenMessages = 0;
            c.takenBytes = 0;
            // Later, not from inside a write: the frame decoder may be below on this stack.
            ctx.executor().execute(() -> {
                if (calls.get(id) == c) {
                    ctx.fireChannelRead(StreamCodec.encodeCredit(ctx.alloc(), id, m, b));
                }
            });
        }
    }

    private void respond(
            ChannelHandlerContext ctx,
            Http2FrameStream stream,
            String origin,
            boolean preflight,
            HttpJson.Answer a,
            ChannelPromise promise) {
        Http2Headers h = new DefaultHttp2Headers().status(Integer.toString(a.status()));
        if (a.status() != 204) {
            h.set("content-type", "application/json");
        }
        if (a.gzip()) {
            h.set("content-encoding", "gzip");
        }
        h.setInt("content-length", a.body().readableBytes());
        json.corsHeaders(origin, preflight, (k, v) -> h.set(k, v));
        if (!a.body().isReadable()) {
            a.body().release();
            ctx.write(new DefaultHttp2HeadersFrame(h, true).stream(stream), promise);
            return;
        }
        ctx.write(new DefaultHttp2HeadersFrame(h, false).stream(stream));
        ctx.write(new DefaultHttp2DataFrame(a.body(), true).stream(stream), promise);
    }

    private static String header(Http2Headers headers, String name) {
        CharSequence v = headers.get(name);
        return v == null ? null : v.toString();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        for (Arriving a : arriving.values()) {
            a.drop();
        }
        arriving.clear();
        for (Call c : calls.values()) {
            if (c.deadline != null) {
                c.deadline.cancel(false);
            }
        }
        calls.clear();
        super.channelInactive(ctx);
    }
}
