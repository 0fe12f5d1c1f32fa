package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2PingFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import io.xrpc.serialize.protobuf.ProtoContract;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/2 on a server's port, behind Netty's HTTP/2 frame codec (which enforces the protocol's own
 * limits: concurrent streams, header list size, and its Rapid Reset and control-frame flood
 * guards): gathers each stream's request as {@link Http1Calls} does one HTTP/1.1 request, hands it
 * to the XRpc handlers behind this one through {@link HttpJson}, and answers on its stream. A stream
 * the peer resets cancels its call; a stream's protocol error resets that stream only. Answers the
 * peer's flow control holds back count as the connection's unsent output, so a peer that grants no
 * window makes the connection unwritable, as a peer that does not read does. Not sharable; event
 * loop only.
 */
final class Http2Calls extends ChannelDuplexHandler {
    /** Streams a connection may have open at once: the XRpc stream limit, and HTTP/2's usual. */
    static final int MAX_CONCURRENT_STREAMS = ServerChannelHandler.MAX_STREAMS;
    /** Each stream's receive window: what a peer may send ahead before this side reads it. */
    static final int WINDOW = 64 * 1024;
    /**
     * The connection's receive window: room for every stream's, so that streams whose provider
     * takes nothing (each held at its own window) cannot stop the others on the connection.
     */
    static final int CONNECTION_WINDOW = MAX_CONCURRENT_STREAMS * WINDOW;
    /** HTTP/2's initial connection window, which only a WINDOW_UPDATE changes. */
    private static final int INITIAL_CONNECTION_WINDOW = 65_535;
    /** The bit of the channel's writability that answers held by the peer's flow control clear. */
    private static final int HELD_BACK = 1;

    private final NettyServerTransport server;
    private final HttpJson json;
    private final GrpcWire grpc;
    private final int maxBody;
    private final long timeoutMillis;
    private final long highMark;
    private final long lowMark;

    /** Requests arriving, by stream id. */
    private final Map<Integer, Arriving> arriving = new HashMap<>();
    /** Calls handed on and not yet answered, by XRpc request id. */
    private final Map<Long, Call> calls = new HashMap<>();
    /** gRPC calls whose caller streams, by HTTP/2 stream id. */
    private final Map<Integer, Call> uplinks = new HashMap<>();

    private long nextId = 1;
    /** DATA written to the codec and not yet taken by the socket (flow control may hold it). */
    private long unsent;

    private ChannelPromise goAway;
    private boolean goAwayPinged;
    /** Whether unsent DATA is over the high mark (the channel's writability bit is cleared). */
    private boolean heldBack;
    /** When the socket last took DATA of this connection (nanoTime). */
    private long progressAt = System.nanoTime();

    private final class Arriving {
        final Http2FrameStream stream;
        final Http2Headers headers;
        /** A gRPC call ({@code application/grpc}): refused and answered in gRPC's terms. */
        final boolean grpc;
        /** What a gRPC request's headers named. */
        GrpcWire.Target target;

        ByteBuf body;
        MemoryBudget reservedIn;
        long reserved;
        ScheduledFuture<?> timer;

        Arriving(Http2FrameStream stream, Http2Headers headers, ChannelHandlerContext ctx) {
            this.stream = stream;
            this.headers = headers;
            this.grpc = GrpcWire.isGrpc(headers.get("content-type"));
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
        final boolean acceptsGzip;
        final String origin;
        ScheduledFuture<?> deadline;
        boolean server;
        boolean sse;
        boolean accepted;
        /** A gRPC call: its contract says what a declared exception's details are. */
        boolean grpc;
        /** The gRPC request came gzip: the answer says {@code grpc-encoding: gzip} and may be compressed. */
        boolean grpcGzip;

        ProtoContract contract;
        /** The XRpc request id. */
        long id;
        /** A gRPC caller's stream: its messages on their way to the provider. */
        Uplink uplink;

        final HttpJson.Taken taken = new HttpJson.Taken();

        Call(Http2FrameStream stream, boolean isVoid, boolean acceptsGzip, String origin) {
            this.stream = stream;
            this.isVoid = isVoid;
            this.acceptsGzip = acceptsGzip;
            this.origin = origin;
        }
    }

    Http2Calls(NettyServerTransport server, HttpJson json, GrpcWire grpc) {
        this.server = server;
        this.json = json;
        this.grpc = grpc;
        this.maxBody = server.settings().transport().maxFrameLength();
        this.timeoutMillis = server.settings().frameTimeout().toMillis();
        this.highMark = server.settings().transport().writeBufferHighWaterMark();
        this.lowMark = server.settings().transport().writeBufferLowWaterMark();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame h) {
                onHeaders(ctx, h);
            } else if (msg instanceof Http2DataFrame d) {
                onData(ctx, d);
            } else if (msg instanceof Http2ResetFrame r) {
                onReset(ctx, r.stream().id());
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHeaders(ChannelHandlerContext ctx, Http2HeadersFrame h) {
        int id = h.stream().id();
        Call up = uplinks.get(id);
        if (up != null) {
            if (h.isEndStream()) { // trailers end the caller's stream
                up.uplink.ended = true;
                pump(ctx, up);
            }
            return;
        }
        Arriving a = arriving.get(id);
        if (a != null) {
            if (h.isEndStream()) {
                complete(ctx, a); // trailers end it
            }
            return;
        }
        if (goAway != null) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(h.stream()));
            return; // opened after this side said it goes away: not run, safe to send again
        }
        a = new Arriving(h.stream(), h.headers(), ctx);
        arriving.put(id, a);
        String origin = header(h.headers(), "origin");
        CharSequence authority = h.headers().authority();
        if (!json.allowsOrigin(origin, authority == null ? null : authority.toString())) {
            refuse(
                    ctx,
                    a,
                    403,
                    "permission_denied",
                    "origin " + origin + " is not allowed to call this server (httpAllowedOrigins)");
            return;
        }
        if (a.grpc) {
            a.target = grpc.resolve(h.headers());
            if (a.target.refused != null) {
                arriving.remove(id, a);
                a.drop();
                refuseGrpc(ctx, a.stream, a.target.refused);
                return;
            }
            if (a.target.rpc.clientStreaming()) {
                openUplink(ctx, a, h.isEndStream());
                return;
            }
        }
        long length = contentLength(h.headers());
        if (length > maxBody) {
            refuse(
                    ctx,
                    a,
                    413,
                    "resource_exhausted",
                    "a body of " + length + " bytes is over the frame limit of " + maxBody + " (maxFrameLength)");
            return;
        }
        if (length > 0) {
            // Every byte reserved, not only those over 16 KiB as for a frame: a connection holds up
            // to 100 bodies arriving at once, where it holds one partial frame.
            MemoryBudget budget = json.budgetFor(ctx);
            if (!budget.tryReserve(length)) {
                refuse(ctx, a, json.busy(budget));
                return;
            }
            a.reservedIn = budget;
            a.reserved = length;
        }
        a.body = ctx.alloc().buffer(length > 0 ? (int) length : 0);
        if (h.isEndStream()) {
            complete(ctx, a);
        }
    }

    private static long contentLength(Http2Headers headers) {
        CharSequence v = headers.get("content-length");
        if (v == null || v.length() == 0 || v.length() > 18) {
            return v == null || v.length() == 0 ? -1 : Long.MAX_VALUE;
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1; // Netty's codec refuses the stream for it
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /**
     * Answers a stream at once, before its body (if any) arrived, and resets what is left of it, so
     * that nothing more is read or held for it (RFC 9113 8.1).
     */
    private void refuse(ChannelHandlerContext ctx, Arriving a, HttpJson.Refusal r) {
        refuse(ctx, a, r.status(), r.code(), r.message());
    }

    private void refuse(ChannelHandlerContext ctx, Arriving a, int status, String code, String message) {
        arriving.remove(a.stream.id(), a);
        a.drop();
        if (a.grpc) {
            refuseGrpc(ctx, a.stream, new GrpcWire.Status(GrpcWire.code(code), message));
            return;
        }
        ChannelPromise sent = ctx.newPromise();
        // Reset once the answer is out: its DATA may wait for the peer's window, and a reset
        // written before it would overtake it.
        sent.addListener(f -> ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(a.stream)));
        respond(
                ctx,
                a.stream,
                header(a.headers, "origin"),
                false,
                HttpJson.error(ctx.alloc(), status, code, message),
                sent);
        ctx.flush();
    }

    private void onData(ChannelHandlerContext ctx, Http2DataFrame d) {
        Call up = uplinks.get(d.stream().id());
        if (up != null) {
            uplinkData(ctx, up, d);
            return;
        }
        int flowed = d.initialFlowControlledBytes();
        if (flowed > 0) {
            // Read: the peer may send this much more (what is held is bounded below, not by the window).
            ctx.write(new DefaultHttp2WindowUpdateFrame(flowed).stream(d.stream()));
        }
        Arriving a = arriving.get(d.stream().id());
        if (a == null) {
            if (flowed > 0) {
                ctx.flush();
            }
            return;
        }
        ByteBuf chunk = d.content();
        if (chunk.isReadable()) {
            int total = a.body.readableBytes() + chunk.readableBytes();
            if (total > maxBody) {
                refuse(
                        ctx,
                        a,
                        413,
                        "resource_exhausted",
                        "the body grew past the frame limit of " + maxBody + " bytes (maxFrameLength)");
                return;
            }
            if (total > a.reserved) {
                // No content-length: what its buffer will hold once it grows, not only what it holds.
                MemoryBudget budget = a.reservedIn != null ? a.reservedIn : json.budgetFor(ctx);
                long need = Math.min(Math.max(total, Math.min((long) a.body.capacity() * 2, maxBody)), maxBody);
                if (!budget.tryReserve(need - a.reserved)) {
                    refuse(ctx, a, json.busy(budget));
                    return;
                }
                a.reservedIn = budget;
                a.reserved = need;
            }
            a.body.writeBytes(chunk);
        }
        if (d.isEndStream()) {
            complete(ctx, a);
        } else if (flowed > 0) {
            ctx.flush();
        }
    }

    private void complete(ChannelHandlerContext ctx, Arriving a) {
        arriving.remove(a.stream.id());
        ByteBuf body = a.body;
        a.body = null;
        a.drop(); // the frame decoder reserves the frame from here
        long id = nextId++;
        String origin = header(a.headers, "origin");
        String method = String.valueOf(a.headers.method());
        if ("OPTIONS".equals(method)) {
            body.release();
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
        if (a.grpc) {
            completeGrpc(ctx, a, id, body);
            return;
        }
        HttpJson.Translated t = json.request(
                ctx.alloc(), id, method, String.valueOf(headers.path()), name -> header(headers, name), body);
        if (t.answer != null) {
            respond(ctx, a.stream, origin, false, t.answer, ctx.newPromise());
            ctx.flush();
            return;
        }
        Call c = new Call(a.stream, t.isVoid, t.gzip, origin);
        c.server = t.stream;
        c.sse = t.sse;
        start(ctx, id, c, String.valueOf(headers.path()), t.budgetMillis, t.frame);
    }

    /** Hands a translated call on, answering it at its deadline if the provider has not. */
    private void start(ChannelHandlerContext ctx, long id, Call c, String path, int budget, ByteBuf frame) {
        calls.put(id, c);
        c.deadline = ctx.executor()
                .schedule(
                        () -> {
                            c.deadline = null;
                            if (calls.remove(id, c)) {
                                ended(c);
                                ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), id)); // its answer is not sent
                                if (c.grpc) {
                                    String why = path + " did not answer within its deadline of " + budget
                                            + " ms (grpc-timeout; " + HttpJson.DEFAULT_BUDGET_MILLIS
                                            + " ms when none is sent)";
                                    endGrpc(ctx, c, GrpcWire.DEADLINE_EXCEEDED, why, ctx.newPromise());
                                    ctx.flush();
                                    goneAway();
                                    return;
                                }
                                HttpJson.Answer late = HttpJson.deadlinePassed(ctx.alloc(), path, budget);
                                if (c.accepted) {
                                    data(
                                            ctx,
                                            c.stream,
                                            HttpJson.errorPart(ctx.alloc(), late, c.sse),
                                            true,
                                            ctx.newPromise());
                                } else {
                                    respond(ctx, c.stream, c.origin, false, late, ctx.newPromise());
                                }
                                ctx.flush();
                                goneAway();
                            }
                        },
                        budget,
                        TimeUnit.MILLISECONDS);
        ctx.fireChannelRead(frame);
    }

    private void completeGrpc(ChannelHandlerContext ctx, Arriving a, long id, ByteBuf body) {
        GrpcWire.Translated t;
        try {
            t = grpc.request(ctx.alloc(), id, a.headers, a.target, body);
        } finally {
            body.release();
        }
        if (t.refused != null) {
            refuseGrpc(ctx, a.stream, t.refused);
            return;
        }
        Call c = grpcCall(a, id);
        start(ctx, id, c, String.valueOf(a.headers.path()), a.target.budgetMillis, t.frame);
    }

    private static Call grpcCall(Arriving a, long id) {
        Call c = new Call(a.stream, false, false, null);
        c.grpc = true;
        c.id = id;
        c.server = a.target.rpc.serverStreaming() || a.target.rpc.clientStreaming();
        c.contract = a.target.contract;
        c.grpcGzip = a.target.gzip;
        return c;
    }

    /** A gRPC caller's stream, between its DATA frames and the provider's credit. Event loop only. */
    private static final class Uplink {
        /** What one waiting message costs beyond its bytes: its frame's header and buffer object. */
        static final int FRAME_OVERHEAD = ProtocolConstants.HEADER_LENGTH + 128;

        /** Bytes of the message not yet whole (null when none). */
        ByteBuf partial;
        /** What {@link #partial}'s memory reserves: its capacity. */
        long partialReserved;
        /** Ends the call when a message does not arrive whole within the frame timeout. */
        ScheduledFuture<?> partialTimer;
        /** STREAM_MESSAGE frames waiting for the provider's credit. */
        final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
        /** What {@link #ready} reserves: each frame's capacity and overhead. */
        long readyReserved;
        /** DATA bytes read and not yet given back to the peer's window. */
        int unacked;

        long creditMessages;
        long creditBytes;
        /** The caller half-closed its stream. */
        boolean ended;

        boolean endSent;
        MemoryBudget budget;

        void drop() {
            if (partial != null) {
                partial.release();
                partial = null;
            }
            for (ByteBuf f; (f = ready.poll()) != null; ) {
                f.release();
            }
            if (partialTimer != null) {
                partialTimer.cancel(false);
                partialTimer = null;
            }
            if (budget != null) {
                budget.release(partialReserved + readyReserved);
                partialReserved = 0;
                readyReserved = 0;
            }
        }
    }

    /**
     * A gRPC call whose caller streams: the provider's REQUEST goes now, and the caller's messages
     * follow as they arrive, each only under the provider's credit. While a message waits for
     * credit, nothing the caller sends is given back to its HTTP/2 window, so a provider that takes
     * nothing stops the caller at one window. Between messages the call's deadline bounds a caller
     * that goes quiet; a message begun must arrive whole within the frame timeout, as a frame must.
     * Everything held is reserved in the memory budget by what it occupies.
     */
    private void openUplink(ChannelHandlerContext ctx, Arriving a, boolean ended) {
        arriving.remove(a.stream.id(), a);
        a.drop();
        long id = nextId++;
        GrpcWire.Translated t = grpc.request(ctx.alloc(), id, a.headers, a.target, null);
        if (t.refused != null) {
            refuseGrpc(ctx, a.stream, t.refused);
            return;
        }
        Call c = grpcCall(a, id);
        c.uplink = new Uplink();
        c.uplink.ended = ended;
        c.uplink.budget = json.budgetFor(ctx);
        uplinks.put(a.stream.id(), c);
        start(ctx, id, c, String.valueOf(a.headers.path()), a.target.budgetMillis, t.frame);
    }

    private void uplinkData(ChannelHandlerContext ctx, Call c, Http2DataFrame d) {
        Uplink u = c.uplink;
        u.unacked += d.initialFlowControlledBytes();
        ByteBuf chunk = d.content();
        if (chunk.isReadable()) {
            if (u.partial == null) {
                u.partial = ctx.alloc().buffer(chunk.readableBytes());
            }
            u.partial.writeBytes(chunk);
            if (!reservePartial(ctx, c)) {
                return;
            }
            while (u.partial.readableBytes() >= 5) {
                int at = u.partial.readerIndex();
                int flag = u.partial.getUnsignedByte(at);
                long length = u.partial.getUnsignedInt(at + 1);
                if (flag > 1 || (flag == 1 && !c.grpcGzip)) {
                    failUplink(
                            ctx,
                            c,
                            flag > 1 ? GrpcWire.INVALID_ARGUMENT : GrpcWire.INTERNAL,
                            flag > 1
                                    ? "message flag " + flag + " is not 0 or 1"
                                    : "a compressed message without grpc-encoding: gzip");
                    return;
                }
                if (length > maxBody) {
                    failUplink(
                            ctx,
                            c,
                            GrpcWire.code("resource_exhausted"),
                            "a message of " + length + " bytes is over the frame limit of " + maxBody
                                    + " (maxFrameLength)");
                    return;
                }
                if (u.partial.readableBytes() - 5 < length) {
                    break;
                }
                ByteBuf f = GrpcWire.streamMessage(ctx.alloc(), c.id, u.partial.readSlice(5 + (int) length));
                long cost = f.capacity() + (long) Uplink.FRAME_OVERHEAD;
                if (!u.budget.tryReserve(cost)) {
                    f.release();
                    HttpJson.Refusal r = json.busy(u.budget);
                    failUplink(ctx, c, GrpcWire.code(r.code()), r.message());
                    return;
                }
                u.readyReserved += cost;
                u.ready.add(f);
            }
            if (!u.partial.isReadable()) {
                u.partial.release(); // nothing begun: hold no buffer between messages
                u.partial = null;
                u.budget.release(u.partialReserved);
                u.partialReserved = 0;
            } else {
                u.partial.discardReadBytes();
            }
            timePartial(ctx, c);
        }
        if (d.isEndStream()) {
            u.ended = true;
        }
        pump(ctx, c);
    }

    /** Reserves what the partial message's buffer occupies; false (and the call ended) when the budget is full. */
    private boolean reservePartial(ChannelHandlerContext ctx, Call c) {
        Uplink u = c.uplink;
        long more = u.partial.capacity() - u.partialReserved;
        if (more <= 0) {
            return true;
        }
        if (!u.budget.tryReserve(more)) {
            HttpJson.Refusal r = json.busy(u.budget);
            failUplink(ctx, c, GrpcWire.code(r.code()), r.message());
            return false;
        }
        u.partialReserved += more;
        return true;
    }

    /** A message begun must arrive whole within the frame timeout; the timer runs only while one is begun. */
    private void timePartial(ChannelHandlerContext ctx, Call c) {
        Uplink u = c.uplink;
        if (u.partial == null) {
            if (u.partialTimer != null) {
                u.partialTimer.cancel(false);
                u.partialTimer = null;
            }
            return;
        }
        if (u.partialTimer == null) {
            u.partialTimer =
                    ctx.executor().schedule(() -> partialTimedOut(ctx, c), timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void partialTimedOut(ChannelHandlerContext ctx, Call c) {
        Uplink u = c.uplink;
        u.partialTimer = null;
        if (calls.get(c.id) != c || u.partial == null) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            timePartial(ctx, c); // this side stopped reading: the silence is not the peer's
            return;
        }
        server.closeLog()
                .warn(
                        "Ending a gRPC stream from {}: a message of it did not arrive whole within {} ms (frameTimeout)",
                        ctx.channel().remoteAddress(),
                        timeoutMillis);
        failUplink(
                ctx,
                c,
                GrpcWire.code("canceled"),
                "a message of the caller's stream did not arrive whole within " + timeoutMillis + " ms (frameTimeout)");
    }

    /**
     * Sends the provider what its credit allows, then the caller's end once all was sent; gives the
     * caller's window back once nothing waits for credit.
     */
    private void pump(ChannelHandlerContext ctx, Call c) {
        Uplink u = c.uplink;
        while (!u.ready.isEmpty() && u.creditMessages > 0 && u.creditBytes > 0) {
            ByteBuf f = u.ready.poll();
            int body = f.readableBytes() - ProtocolConstants.HEADER_LENGTH;
            u.creditMessages--;
            u.creditBytes -= body;
            long cost = Math.min(u.readyReserved, f.capacity() + (long) Uplink.FRAME_OVERHEAD);
            u.budget.release(cost); // the frame decoder reserves the frame from here
            u.readyReserved -= cost;
            ctx.fireChannelRead(f);
        }
        if (u.ended && !u.endSent && u.ready.isEmpty()) {
            if (u.partial != null && u.partial.isReadable()) {
                failUplink(
                        ctx,
                        c,
                        GrpcWire.INVALID_ARGUMENT,
                        "the caller's stream ended inside a message (" + u.partial.readableBytes() + " bytes of it)");
                return;
            }
            u.endSent = true;
            ctx.fireChannelRead(StreamCodec.encodeEnd(ctx.alloc(), c.id, GrpcWire.PROTOBUF_SERIALIZER));
        }
        if (u.ready.isEmpty() && u.unacked > 0) {
            ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(u.unacked).stream(c.stream));
            u.unacked = 0;
        }
    }

    /** Ends a call whose caller sent what cannot be passed on: the provider gets a CANCEL, the caller the status. */
    private void failUplink(ChannelHandlerContext ctx, Call c, int code, String message) {
        if (!calls.remove(c.id, c)) {
            return;
        }
        ended(c);
        ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), c.id));
        ChannelPromise sent = ctx.newPromise();
        // Reset once the status is out: answers held by the peer's window go first, and a reset
        // written now would drop them and the status with them.
        sent.addListener(f -> {
            if (c.stream.state() != Http2Stream.State.CLOSED) {
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(c.stream));
            }
        });
        endGrpc(ctx, c, code, message, sent);
        ctx.flush();
        goneAway();
    }

    /** A call is over: its timer and anything of its caller's stream still held go. */
    private void ended(Call c) {
        if (c.deadline != null) {
            c.deadline.cancel(false);
            c.deadline = null;
        }
        if (c.uplink != null) {
            uplinks.remove(c.stream.id(), c);
            c.uplink.drop();
        }
    }

    /** A gRPC call refused before the XRpc path: a trailers-only answer, then what is left of the stream reset. */
    private void refuseGrpc(ChannelHandlerContext ctx, Http2FrameStream stream, GrpcWire.Status s) {
        ctx.write(new DefaultHttp2HeadersFrame(GrpcWire.ending(false, s.code(), s.message(), null, null), true)
                        .stream(stream))
                .addListener(f -> {
                    if (stream.state() != Http2Stream.State.CLOSED) {
                        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(stream));
                    }
                });
        ctx.flush();
    }

    /** Ends a gRPC call with {@code code}: trailers after its headers, or trailers only. */
    private void endGrpc(ChannelHandlerContext ctx, Call c, int code, String message, ChannelPromise promise) {
        ctx.write(
                new DefaultHttp2HeadersFrame(GrpcWire.ending(c.accepted, code, message, null, null), true)
                        .stream(c.stream),
                promise);
    }

    /** A gRPC call's answer frame: its message and OK, or its status as trailers only. */
    private void answerGrpc(ChannelHandlerContext ctx, Call c, ByteBuf f, ChannelPromise promise) {
        if (GrpcWire.status(f) != 0) {
            ctx.write(
                    new DefaultHttp2HeadersFrame(GrpcWire.failure(f, c.contract, false), true).stream(c.stream),
                    promise);
            return;
        }
        ByteBuf message = grpcMessage(ctx, c, f);
        if (message == null) {
            ctx.write(
                    new DefaultHttp2HeadersFrame(
                                    GrpcWire.ending(false, GrpcWire.INTERNAL, UNINFLATABLE, null, null), true)
                            .stream(c.stream),
                    promise);
            return;
        }
        ctx.write(new DefaultHttp2HeadersFrame(GrpcWire.responseHeaders(c.grpcGzip), false).stream(c.stream));
        data(ctx, c.stream, message, false, ctx.newPromise());
        ctx.write(
                new DefaultHttp2HeadersFrame(GrpcWire.ending(true, 0, null, null, null), true).stream(c.stream),
                promise);
    }

    private static final String UNINFLATABLE =
            "the provider's gzip answer could not be inflated within the frame limit (maxFrameLength)";

    /** A frame's body as a gRPC message, compressed as it came when the answer said gzip, else plain. */
    private ByteBuf grpcMessage(ChannelHandlerContext ctx, Call c, ByteBuf f) {
        ByteBuf body = HttpJson.body(f);
        if (GrpcWire.compressed(f)) {
            if (c.grpcGzip) {
                return GrpcWire.message(ctx.alloc(), body.retain(), true);
            }
            ByteBuf plain = HttpJson.inflate(
                    ctx.alloc(), body, server.settings().transport().maxFrameLength());
            return plain == null ? null : GrpcWire.message(ctx.alloc(), plain, false);
        }
        return GrpcWire.message(ctx.alloc(), body.retain(), false);
    }

    /** The stream is over from the peer's side (reset, or broken): its request or call is dropped. */
    private void onReset(ChannelHandlerContext ctx, int stream) {
        Arriving a = arriving.remove(stream);
        if (a != null) {
            a.drop();
            return;
        }
        for (Map.Entry<Long, Call> e : calls.entrySet()) {
            if (e.getValue().stream.id() == stream) {
                long id = e.getKey();
                Call c = calls.remove(id);
                ended(c);
                ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), id)); // the call is cancelled as any
                goneAway();
                return;
            }
        }
    }

    /** A stream's protocol error costs that stream: it is reset, its call cancelled; the connection serves on. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof Http2FrameStreamException e && e.stream() != null) {
            onReset(ctx, e.stream().id());
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(e.error()).stream(e.stream()));
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    /** Idle while calls run is their time, not the peer's silence: the heartbeat does not hear of it. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent
                && !(calls.isEmpty() && arriving.isEmpty())
                && ctx.channel().isWritable()) {
            return; // a peer that grants no window for its answers is silent on its own account
        }
        super.userEventTriggered(ctx, evt);
    }

    private void timedOut(ChannelHandlerContext ctx, Arriving a) {
        a.timer = null;
        if (!ctx.channel().config().isAutoRead() && arriving.get(a.stream.id()) == a) {
            a.timer = ctx.executor().schedule(() -> timedOut(ctx, a), timeoutMillis, TimeUnit.MILLISECONDS);
            return; // this side stopped reading: the silence is not the peer's
        }
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
            MessageType type = HttpJson.type(f);
            if (type == MessageType.GOAWAY) {
                if (goAway == null) {
                    goAway = promise; // completed once the calls running have answered
                    ctx.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR));
                    goneAway();
                } else {
                    promise.trySuccess();
                }
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
            Call c = calls.remove(HttpJson.requestId(f));
            if (c == null) {
                promise.trySuccess(); // its stream was reset, or its deadline answered it
                return;
            }
            ended(c);
            if (c.grpc) {
                answerGrpc(ctx, c, f, promise.isVoid() ? ctx.newPromise() : promise);
                goneAway();
                return;
            }
            HttpJson.Answer a = json.answer(ctx.alloc(), f, c.isVoid, c.acceptsGzip);
            respond(ctx, c.stream, c.origin, false, a, promise.isVoid() ? ctx.newPromise() : promise);
            goneAway();
        } finally {
            f.release();
        }
    }

    /** After a GOAWAY: once no call is left, the XRpc side may shut the output (later streams stay refused). */
    private void goneAway() {
        if (goAway != null && calls.isEmpty() && !goAwayPinged && ctx != null) {
            goAwayPinged = true;
            // Completed once what was written is out (a PING goes after it): its listener shuts
            // the output, which would drop an answer still queued.
            ChannelPromise g = goAway;
            ctx.writeAndFlush(new DefaultHttp2PingFrame(0L)).addListener(f -> g.trySuccess());
        }
    }

    private ChannelHandlerContext ctx;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // Added behind the codec, which has sent its preface: the connection's window grows once, here.
        ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - INITIAL_CONNECTION_WINDOW));
    }

    /** A server stream's frame: its acceptance sends the headers, each message a DATA frame, its end the last. */
    private void onStream(ChannelHandlerContext ctx, long id, Call c, MessageType type, ByteBuf f) {
        if (c.grpc) {
            onGrpcStream(ctx, id, c, type, f);
            return;
        }
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
            sendPart(ctx, id, c, json.messagePart(ctx.alloc(), f, c.sse));
            return;
        }
        calls.remove(id, c);
        ended(c);
        ByteBuf last = json.endPart(ctx.alloc(), f, c.sse);
        data(ctx, c.stream, last == null ? ctx.alloc().buffer(0) : last, true, ctx.newPromise());
        goneAway();
    }

    /** One message of a provider's stream as a DATA frame; its credit goes back once the socket took it. */
    private void sendPart(ChannelHandlerContext ctx, long id, Call c, ByteBuf part) {
        int bytes = part.readableBytes();
        data(ctx, c.stream, part, false, ctx.newPromise()).addListener(done -> {
            if (done.isSuccess()) {
                c.taken.add(ctx, id, bytes, () -> calls.get(id) == c);
            }
        });
    }

    /** A gRPC server stream's frame: acceptance sends the headers, each message a DATA frame, its end the trailers. */
    private void onGrpcStream(ChannelHandlerContext ctx, long id, Call c, MessageType type, ByteBuf f) {
        if (type == MessageType.CREDIT) {
            if (!c.accepted) {
                c.accepted = true;
                ctx.write(new DefaultHttp2HeadersFrame(GrpcWire.responseHeaders(c.grpcGzip), false).stream(c.stream));
            }
            ByteBuf credit = HttpJson.body(f);
            if (c.uplink != null && credit.readableBytes() == StreamCodec.CREDIT_BODY) {
                c.uplink.creditMessages += Math.max(0, credit.getInt(credit.readerIndex()));
                c.uplink.creditBytes += Math.max(0, credit.getInt(credit.readerIndex() + 4));
                // The frame decoder may be below on this stack: the messages go in from the event loop's queue.
                ctx.executor().execute(() -> {
                    if (calls.get(id) == c) {
                        pump(ctx, c);
                    }
                });
            }
            return;
        }
        if (type == MessageType.STREAM_MESSAGE) {
            ByteBuf part = grpcMessage(ctx, c, f);
            if (part == null) {
                calls.remove(id, c);
                ended(c);
                // The frame decoder may be below on this stack: the CANCEL goes in from the event loop's queue.
                ctx.executor().execute(() -> ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), id)));
                endGrpc(ctx, c, GrpcWire.INTERNAL, UNINFLATABLE, ctx.newPromise());
                goneAway();
                return;
            }
            sendPart(ctx, id, c, part);
            return;
        }
        calls.remove(id, c);
        ended(c);
        Http2Headers end = GrpcWire.status(f) == 0
                ? GrpcWire.ending(c.accepted, 0, null, null, null)
                : GrpcWire.failure(f, c.contract, c.accepted);
        ctx.write(new DefaultHttp2HeadersFrame(end, true).stream(c.stream));
        goneAway();
    }

    /**
     * Writes a DATA frame, counting its bytes as unsent until the socket took them: over the high
     * mark the channel turns unwritable (reading and answering pause), under the low mark it turns
     * writable again.
     */
    private ChannelFuture data(
            ChannelHandlerContext ctx, Http2FrameStream stream, ByteBuf body, boolean end, ChannelPromise promise) {
        int bytes = body.readableBytes();
        unsent += bytes;
        if (unsent > highMark) {
            heldBack(ctx, true);
        }
        promise.addListener(done -> {
            unsent -= bytes;
            progressAt = System.nanoTime();
            if (unsent < lowMark) {
                heldBack(ctx, false);
            }
        });
        return ctx.write(new DefaultHttp2DataFrame(body, end).stream(stream), promise);
    }

    private void heldBack(ChannelHandlerContext ctx, boolean held) {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        if (out != null) {
            out.setUserDefinedWritability(HELD_BACK, !held);
        }
        if (held && !heldBack) {
            heldBack = true;
            checkProgress(ctx);
        } else if (!held) {
            heldBack = false;
        }
    }

    /**
     * While answers are held back, the peer must take some within the frame timeout: a peer that
     * grants no window (and pings to look alive) would otherwise hold them for ever.
     */
    private void checkProgress(ChannelHandlerContext ctx) {
        ctx.executor()
                .schedule(
                        () -> {
                            if (!heldBack || !ctx.channel().isActive()) {
                                return;
                            }
                            if (System.nanoTime() - progressAt >= TimeUnit.MILLISECONDS.toNanos(timeoutMillis)) {
                                server.closeLog()
                                        .warn(
                                                "Closing connection from {}: it took none of {} bytes of answers for {} ms"
                                                        + " (its HTTP/2 flow-control window; frameTimeout)",
                                                ctx.channel().remoteAddress(),
                                                unsent,
                                                timeoutMillis);
                                ctx.close();
                            } else {
                                checkProgress(ctx);
                            }
                        },
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
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
            h.set("content-type", a.type());
            h.setInt("content-length", a.body().readableBytes());
            if (a.type().startsWith("text/html")) {
                h.set("content-security-policy", HttpJson.CONSOLE_POLICY);
            }
        }
        if (a.status() == 405) {
            h.set("allow", "POST, OPTIONS");
        }
        if (a.gzip()) {
            h.set("content-encoding", "gzip");
            h.set("vary", "accept-encoding");
        }
        json.corsHeaders(origin, preflight, (k, v) -> h.set(k, v));
        if (!a.body().isReadable()) {
            a.body().release();
            ctx.write(new DefaultHttp2HeadersFrame(h, true).stream(stream), promise);
            return;
        }
        ctx.write(new DefaultHttp2HeadersFrame(h, false).stream(stream));
        data(ctx, stream, a.body(), true, promise);
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
            ended(c);
        }
        calls.clear();
        if (goAway != null) {
            goAway.trySuccess();
        }
        super.channelInactive(ctx);
    }
}
