package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 on a server's port: gathers each request (within the frame limit, the memory budget and
 * the frame timeout, as a frame is held to them), has {@link HttpJson} make it an XRpc request for
 * the handlers behind this one, and turns their answers back into HTTP responses, in the order the
 * requests came. Pipelined requests run at once, {@link #MAX_PIPELINED} at most: beyond that
 * nothing more is read until answers went out. Not sharable: one per connection, event loop only.
 */
final class Http1Calls extends ChannelDuplexHandler {
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADER_SIZE = 8192;
    /** Requests read and not yet answered on one connection; reading waits beyond it. */
    static final int MAX_PIPELINED = 16;

    private final NettyServerTransport server;
    private final HttpJson json;
    private final int maxBody;
    private final long timeoutMillis;

    /** Answers owed, in request order; each is written when it and all before it are ready. */
    private final ArrayDeque<Pending> owed = new ArrayDeque<>();

    private long nextId = 1;
    private HttpRequest head;
    private ByteBuf body;
    private MemoryBudget reservedIn;
    private long reserved;
    /** Why the request now arriving is answered without running: its body is read and dropped. */
    private HttpJson.Refusal refusal;

    /** The connection closes after the answers owed: nothing read after that runs. */
    private boolean closeAfter;
    /** A GOAWAY of the XRpc side, completed once the answers owed went out (then it shuts output). */
    private ChannelPromise goAway;

    private boolean held;
    private ScheduledFuture<?> timer;
    private ChannelHandlerContext ctx;

    private static final class Pending {
        final long id;
        final boolean keepAlive;
        final String origin;
        boolean preflight;
        boolean isVoid;
        boolean acceptsGzip;
        HttpJson.Answer answer;
        ChannelPromise promise;
        ScheduledFuture<?> deadline;
        /** A server stream: once accepted, its parts go out as they come, at the head of the line. */
        boolean stream;

        boolean sse;
        boolean accepted;
        /** Its last part is queued: once written, the next answer's turn. */
        boolean ended;
        /** Parts of an accepted stream not yet written (it is not the head of the line yet). */
        final ArrayDeque<HttpObject> parts = new ArrayDeque<>(2);
        /** What the socket took of it since credit was last granted back. */
        final HttpJson.Taken taken = new HttpJson.Taken();

        Pending(long id, boolean keepAlive, String origin) {
            this.id = id;
            this.keepAlive = keepAlive;
            this.origin = origin;
        }
    }

    Http1Calls(NettyServerTransport server, HttpJson json) {
        this.server = server;
        this.json = json;
        this.maxBody = server.settings().transport().maxFrameLength();
        this.timeoutMillis = server.settings().frameTimeout().toMillis();
    }

    /** Sits before the HTTP codec: the first byte of a request starts its clock. */
    ChannelInboundHandlerAdapter clock() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (msg instanceof ByteBuf b && b.isReadable()) {
                    startClock();
                }
                c.fireChannelRead(msg);
            }
        };
    }

    private void startClock() {
        if (timer == null && ctx != null) {
            timer = ctx.executor().schedule(this::timedOut, timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void stopClock() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ServerChannelHandler h = ctx.pipeline().get(ServerChannelHandler.class);
        if (h != null) {
            h.readingHeld = () -> held;
        }
    }

    private void timedOut() {
        timer = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            startClock(); // this side stopped reading: the silence is not the peer's
            return;
        }
        server.closeLog()
                .warn(
                        "Closing connection from {}: an HTTP request did not arrive whole within {} ms of its"
                                + " first byte (frameTimeout)",
                        ctx.channel().remoteAddress(),
                        timeoutMillis);
        ctx.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (closeAfter) {
                return; // read after a request that closes the connection: not run (RFC 9112 9.6)
            }
            if (msg instanceof HttpObject o && o.decoderResult().isFailure()) {
                malformed(ctx, o.decoderResult().cause());
                return;
            }
            if (msg instanceof HttpRequest r) {
                begin(ctx, r);
            }
            if (msg instanceof HttpContent c && head != null) {
                gather(c.content());
                if (msg instanceof LastHttpContent) {
                    complete(ctx);
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void malformed(ChannelHandlerContext ctx, Throwable why) {
        int status =
                why instanceof TooLongHttpHeaderException ? 431 : why instanceof TooLongHttpLineException ? 414 : 400;
        String what = why instanceof TooLongFrameException
                ? why.getMessage() + " (the limits: request line " + MAX_INITIAL_LINE + " bytes, headers "
                        + MAX_HEADER_SIZE + ")"
                : "malformed HTTP request: " + why;
        refuseAndClose(ctx, new HttpJson.Refusal(status, "invalid_argument", what));
    }

    private void begin(ChannelHandlerContext ctx, HttpRequest r) {
        startClock(); // a request that began in the read that ended the one before
        head = r;
        refusal = null;
        long length = HttpUtil.getContentLength(r, -1L);
        String origin = r.headers().get(HttpHeaderNames.ORIGIN);
        if (length > maxBody) {
            refuseAndClose(
                    ctx,
                    new HttpJson.Refusal(
                            413,
                            "resource_exhausted",
                            "a body of " + length + " bytes is over the frame limit of " + maxBody
                                    + " (maxFrameLength)"));
            return;
        }
        if (!json.allowsOrigin(origin, r.headers().get(HttpHeaderNames.HOST))) {
            refusal = new HttpJson.Refusal(
                    403,
                    "permission_denied",
                    "origin " + origin + " is not allowed to call this server (httpAllowedOrigins)");
        }
        if (length > MemoryBudget.FREE_BODY && refusal == null) {
            // Its length is known: reserved and allocated whole, once, as a frame's body is.
            MemoryBudget budget = json.budgetFor(ctx);
            if (!budget.tryReserve(length)) {
                refusal = json.busy(budget);
            } else {
                reservedIn = budget;
                reserved = length;
            }
        }
        body = refusal != null ? null : ctx.alloc().buffer(length > 0 ? (int) length : 0);
        if (HttpUtil.is100ContinueExpected(r) && refusal == null && owed.isEmpty()) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
    }

    private void gather(ByteBuf chunk) {
        if (refusal != null || body == null || !chunk.isReadable()) {
            return; // dropped as it arrives
        }
        int total = body.readableBytes() + chunk.readableBytes();
        if (total > maxBody) {
            refuseAndClose(
                    ctx,
                    new HttpJson.Refusal(
                            413,
                            "resource_exhausted",
                            "the body grew past the frame limit of " + maxBody + " bytes (maxFrameLength)"));
            return;
        }
        if (total > MemoryBudget.FREE_BODY && total > reserved) {
            // A chunked body: what its buffer will hold once it grows (by doubling), not only what it holds.
            MemoryBudget budget = reservedIn != null ? reservedIn : json.budgetFor(ctx);
            long need = Math.min(Math.max(total, Math.min((long) body.capacity() * 2, maxBody)), maxBody);
            if (!budget.tryReserve(need - reserved)) {
                refusal = json.busy(budget);
                dropBody();
                return;
            }
            reservedIn = budget;
            reserved = need;
        }
        body.writeBytes(chunk);
    }

    private void complete(ChannelHandlerContext ctx) {
        HttpRequest r = head;
        head = null;
        stopClock();
        Pending p = new Pending(nextId++, HttpUtil.isKeepAlive(r), r.headers().get(HttpHeaderNames.ORIGIN));
        owed.add(p);
        if (!p.keepAlive) {
            closeAfter = true; // its answer is the last: nothing read after it runs
            hold();
        } else if (owed.size() >= MAX_PIPELINED) {
            hold();
        }
        if (refusal != null) {
            p.answer = refusal.answer(ctx.alloc());
            refusal = null;
            dropBody();
            flushReady();
            return;
        }
        if (r.method().name().equals("OPTIONS")) {
            dropBody();
            p.preflight = true;
            p.answer = new HttpJson.Answer(204, Unpooled.EMPTY_BUFFER, false);
            flushReady();
            return;
        }
        ByteBuf b = body;
        body = null;
        releaseReservation(); // the frame decoder reserves the frame from here
        HttpHeaders h = r.headers();
        HttpJson.Translated t = json.request(ctx.alloc(), p.id, r.method().name(), r.uri(), h::get, b);
        p.isVoid = t.isVoid;
        p.acceptsGzip = t.gzip;
        if (t.answer != null) {
            p.answer = t.answer;
            flushReady();
            return;
        }
        p.stream = t.stream;
        p.sse = t.sse;
        String uri = r.uri();
        int budget = t.budgetMillis;
        p.deadline = ctx.executor()
                .schedule(
                        () -> {
                            p.deadline = null;
                            if (p.answer != null || p.ended || !ctx.channel().isActive()) {
                                return;
                            }
                            HttpJson.Answer late = HttpJson.deadlinePassed(ctx.alloc(), uri, budget);
                            if (p.accepted) {
                                endStream(p, HttpJson.errorPart(ctx.alloc(), late, p.sse));
                            } else {
                                p.answer = late;
                            }
                            ctx.fireChannelRead(RpcCodec.encodeCancel(ctx.alloc(), p.id)); // its answer is not sent
                            flushReady();
                        },
                        budget,
                        TimeUnit.MILLISECONDS);
        ctx.fireChannelRead(t.frame); // the XRpc path from here: frame decoder, router, admission
    }

    /** Reads no more requests until answers went out (pipelining's bound, or a connection that closes). */
    private void hold() {
        held = true;
        ctx.channel().config().setAutoRead(false);
    }

    private void release() {
        if (held && !closeAfter && owed.size() <= MAX_PIPELINED / 2) {
            held = false;
            ServerChannelHandler h = ctx.pipeline().get(ServerChannelHandler.class);
            if (h != null) {
                h.resumeReadingIfFree();
            }
        }
    }

    /** Idle while answers are owed is the calls' time, not the peer's silence: the heartbeat does not hear of it. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && !owed.isEmpty() && ctx.channel().isWritable()) {
            return; // a peer that does not read its answers is silent on its own account
        }
        super.userEventTriggered(ctx, evt);
    }

    /** An XRpc frame written by the handlers behind: an answer to turn into HTTP, or dropped. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf f) || !f.isReadable()) {
            ctx.write(msg, promise); // an empty buffer (a flush marker with a listener), or HTTP already
            return;
        }
        try {
            MessageType type = HttpJson.type(f);
            if (type == MessageType.GOAWAY) {
                closeAfter = true;
                hold();
                goAway = promise; // completed once what is owed went out
                flushReady();
                return;
            }
            if (type == MessageType.CREDIT || type == MessageType.STREAM_MESSAGE || type == MessageType.STREAM_END) {
                promise.trySuccess();
                Pending p = find(HttpJson.requestId(f));
                if (p != null && p.stream && p.answer == null && !p.ended) {
                    onStream(p, type, f);
                }
                return;
            }
            if (type != MessageType.RESPONSE) {
                promise.trySuccess(); // pongs, pings: HTTP has its own keep-alive
                return;
            }
            Pending p = find(HttpJson.requestId(f));
            if (p == null || p.answer != null || p.ended) {
                promise.trySuccess(); // its deadline answered it
                return;
            }
            if (p.deadline != null) {
                p.deadline.cancel(false);
                p.deadline = null;
            }
            p.answer = json.answer(ctx.alloc(), f, p.isVoid, p.acceptsGzip);
            p.promise = promise;
            flushReady();
        } finally {
            f.release();
        }
    }

    /** The owed answer of request {@code id} (at most {@link #MAX_PIPELINED} to look through), or null. */
    private Pending find(long id) {
        for (Pending p : owed) {
            if (p.id == id) {
                return p;
            }
        }
        return null;
    }

    /** A server stream's frame: its acceptance starts the answer, each message is a part, its end the last. */
    private void onStream(Pending p, MessageType type, ByteBuf f) {
        if (type == MessageType.CREDIT) {
            if (!p.accepted) {
                p.accepted = true;
                DefaultHttpResponse resp = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                HttpHeaders h = resp.headers();
                h.set(HttpHeaderNames.CONTENT_TYPE, HttpJson.streamType(p.sse));
                h.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
                HttpUtil.setTransferEncodingChunked(resp, true);
                json.corsHeaders(p.origin, false, (k, v) -> h.set(k, v));
                p.parts.add(resp);
            }
        } else if (type == MessageType.STREAM_MESSAGE) {
            p.parts.add(new DefaultHttpContent(json.messagePart(ctx.alloc(), f, p.sse)));
        } else {
            endStream(p, json.endPart(ctx.alloc(), f, p.sse));
        }
        flushReady();
    }

    /** Queues a stream's last part: its error line, if any, and the end of the chunked answer. */
    private void endStream(Pending p, ByteBuf last) {
        if (p.deadline != null) {
            p.deadline.cancel(false);
            p.deadline = null;
        }
        p.ended = true;
        p.parts.add(last == null ? LastHttpContent.EMPTY_LAST_CONTENT : new DefaultLastHttpContent(last));
    }

    /** Writes the parts of the stream at the head of the line; returns whether it is done. */
    private boolean writeStream(Pending p) {
        HttpObject part;
        while ((part = p.parts.poll()) != null) {
            if (part instanceof HttpContent c && !(part instanceof LastHttpContent)) {
                int bytes = c.content().readableBytes();
                ctx.write(part).addListener(done -> {
                    if (done.isSuccess()) {
                        p.taken.add(ctx, p.id, bytes, () -> ctx.channel().isActive() && !p.ended);
                    }
                });
            } else {
                ctx.write(part);
            }
        }
        return p.ended;
    }

    /** Writes the answers at the head of the line that are ready. */
    private void flushReady() {
        boolean wrote = false;
        boolean closed = false;
        Pending p;
        while ((p = owed.peek()) != null && (p.answer != null || p.accepted)) {
            if (p.answer == null) {
                wrote = true;
                if (!writeStream(p)) {
                    break; // its next parts come later: nothing behind it goes first
                }
                owed.poll();
                if (!p.keepAlive || closeAfter && owed.isEmpty()) {
                    ctx.write(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                    closed = true;
                    break;
                }
                continue;
            }
            owed.poll();
            HttpJson.Answer a = p.answer;
            FullHttpResponse resp =
                    new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(a.status()), a.body());
            HttpHeaders h = resp.headers();
            if (a.status() != 204) {
                h.set(HttpHeaderNames.CONTENT_TYPE, a.type());
                if (a.type().startsWith("text/html")) {
                    h.set("content-security-policy", HttpJson.CONSOLE_POLICY);
                }
            }
            if (a.status() == 405) {
                h.set(HttpHeaderNames.ALLOW, "POST, OPTIONS");
            }
            if (a.gzip()) {
                h.set(HttpHeaderNames.CONTENT_ENCODING, HttpHeaderValues.GZIP);
                h.set(HttpHeaderNames.VARY, HttpHeaderNames.ACCEPT_ENCODING);
            }
            h.setInt(HttpHeaderNames.CONTENT_LENGTH, a.body().readableBytes());
            json.corsHeaders(p.origin, p.preflight, (k, v) -> h.set(k, v));
            // The last answer owed by a connection that closes says so; one before it does not.
            boolean close = !p.keepAlive || closeAfter && owed.isEmpty();
            if (close) {
                h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ChannelPromise promise = p.promise != null && !p.promise.isVoid() ? p.promise : ctx.newPromise();
            ctx.write(resp, promise);
            wrote = true;
            if (close) {
                promise.addListener(ChannelFutureListener.CLOSE);
                closed = true;
                break; // nothing after a closing answer
            }
        }
        if (closeAfter && owed.isEmpty() && !closed && ctx.channel().isActive()) {
            ctx.write(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (goAway != null && owed.isEmpty()) {
            // Completed once what was written is out: its listener shuts the output, which would
            // drop an answer still in the channel's buffer.
            ChannelPromise g = goAway;
            goAway = null;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> g.trySuccess());
        }
        release();
    }

    private void refuseAndClose(ChannelHandlerContext ctx, HttpJson.Refusal r) {
        head = null;
        refusal = null;
        dropBody();
        stopClock();
        closeAfter = true;
        hold();
        Pending p = new Pending(nextId++, false, null);
        p.answer = r.answer(ctx.alloc());
        owed.add(p);
        flushReady();
    }

    private void dropBody() {
        if (body != null) {
            body.release();
            body = null;
        }
        releaseReservation();
    }

    private void releaseReservation() {
        if (reservedIn != null) {
            reservedIn.release(reserved);
            reservedIn = null;
            reserved = 0;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        dropBody();
        stopClock();
        Pending p;
        while ((p = owed.poll()) != null) {
            if (p.deadline != null) {
                p.deadline.cancel(false);
            }
            if (p.answer != null) {
                p.answer.body().release();
            }
            for (HttpObject part : p.parts) {
                ReferenceCountUtil.release(part);
            }
            if (p.promise != null) {
                p.promise.tryFailure(new ClosedChannelException());
            }
        }
        if (goAway != null) {
            goAway.trySuccess();
            goAway = null;
        }
        super.channelInactive(ctx);
    }
}
