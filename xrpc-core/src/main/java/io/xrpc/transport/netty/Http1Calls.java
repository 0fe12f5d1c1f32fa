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
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 on a server's port: gathers each request (within the frame limit, the memory budget and
 * the frame timeout, as a frame is held to them), has {@link HttpJson} make it an XRpc request for
 * the handlers behind this one, and turns their answers back into HTTP responses, in the order the
 * requests came (pipelining). Not sharable: one per connection, event loop only.
 */
final class Http1Calls extends ChannelDuplexHandler {
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADER_SIZE = 8192;

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
    private HttpJson.Answer refusal;

    private boolean closeAfter;
    private ScheduledFuture<?> timer;
    private ChannelHandlerContext ctx;

    private static final class Pending {
        final long id;
        final boolean keepAlive;
        final String origin;
        boolean preflight;
        boolean isVoid;
        /** A server stream: once accepted, its parts go out as they come, at the head of the line. */
        boolean stream;

        boolean sse;
        boolean accepted;
        /** Its last part is queued: once written, the next answer's turn. */
        boolean ended;
        /** Parts of an accepted stream not yet written (it is not the head of the line yet). */
        final ArrayDeque<HttpObject> parts = new ArrayDeque<>(2);
        /** Messages and bytes the socket took since credit was last granted back. */
        int takenMessages;

        long takenBytes;
        HttpJson.Answer answer;
        ChannelPromise promise;
        ScheduledFuture<?> deadline;

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
                if (timer == null && msg instanceof ByteBuf b && b.isReadable()) {
                    timer = c.executor().schedule(Http1Calls.this::timedOut, timeoutMillis, TimeUnit.MILLISECONDS);
                }
                c.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    private void timedOut() {
        timer = null;
        if (ctx.channel().isActive()) {
            server.closeLog()
                    .warn(
                            "Closing connection from {}: an HTTP request did not arrive whole within {} ms of its"
                                    + " first byte (frameTimeout)",
                            ctx.channel().remoteAddress(),
                            timeoutMillis);
            ctx.close();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
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

    private void begin(ChannelHandlerContext ctx, HttpRequest r) {
        if (r.decoderResult().isFailure()) {
            Throwable why = r.decoderResult().cause();
            int status = why instanceof TooLongHttpHeaderException
                    ? 431
                    : why instanceof TooLongHttpLineException ? 414 : 400;
            String what = why instanceof TooLongFrameException
                    ? why.getMessage() + " (the limits: request line " + MAX_INITIAL_LINE + " bytes, headers "
                            + MAX_HEADER_SIZE + ")"
                    : "malformed HTTP request: " + why;
            refuseAndClose(ctx, HttpJson.error(ctx.alloc(), status, "invalid_argument", what));
            return;
        }
        head = r;
        refusal = null;
        body = ctx.alloc().buffer(0);
        long length = HttpUtil.getContentLength(r, -1L);
        String origin = r.headers().get(HttpHeaderNames.ORIGIN);
        if (length > maxBody) {
            refuseAndClose(
                    ctx,
                    HttpJson.error(
                            ctx.alloc(),
                            413,
                            "resource_exhausted",
                            "a body of " + length + " bytes is over the frame limit of " + maxBody
                                    + " (maxFrameLength)"));
            return;
        }
        if (!json.allowsOrigin(origin)) {
            refusal = HttpJson.error(
                    ctx.alloc(),
                    403,
                    "permission_denied",
                    "origin " + origin + " is not allowed to call this server (httpAllowedOrigins)");
        }
        if (HttpUtil.is100ContinueExpected(r) && refusal == null) {
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
                    HttpJson.error(
                            ctx.alloc(),
                            413,
                            "resource_exhausted",
                            "the body grew past the frame limit of " + maxBody + " bytes (maxFrameLength)"));
            return;
        }
        if (total > MemoryBudget.FREE_BODY) {
            MemoryBudget budget = budget();
            long more = total - reserved;
            if (reservedIn != null && reservedIn != budget || !budget.tryReserve(more)) {
                refusal = HttpJson.error(
                        ctx.alloc(),
                        503,
                        "unavailable",
                        "server " + server.endpoint() + " holds its memory budget for requests in transit ("
                                + budget.limit() + " bytes) in other requests; this body was not read");
                dropBody();
                return;
            }
            reservedIn = budget;
            reserved += more;
        }
        body.writeBytes(chunk);
    }

    private MemoryBudget budget() {
        ServerChannelHandler h = ctx.pipeline().get(ServerChannelHandler.class);
        return h != null && h.isAuthenticated() && server.settings().authenticates()
                ? server.memoryBudget()
                : server.settings().authenticates() ? server.unauthenticatedBudget() : server.memoryBudget();
    }

    private void complete(ChannelHandlerContext ctx) {
        HttpRequest r = head;
        head = null;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        Pending p = new Pending(nextId++, HttpUtil.isKeepAlive(r), r.headers().get(HttpHeaderNames.ORIGIN));
        owed.add(p);
        if (refusal != null) {
            p.answer = refusal;
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
        HttpHeaders h = r.headers();
        HttpJson.Translated t = json.request(ctx.alloc(), p.id, r.method().name(), r.uri(), h::get, b);
        releaseReservation();
        p.isVoid = t.isVoid;
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

    /** An XRpc frame written by the handlers behind: an answer to turn into HTTP, or dropped. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf f) || !f.isReadable()) {
            ctx.write(msg, promise); // an empty buffer (a flush marker with a listener), or HTTP already
            return;
        }
        try {
            MessageType type = MessageType.fromCode(f.getByte(f.readerIndex() + 3));
            if (type == MessageType.GOAWAY) {
                closeAfter = true;
                promise.trySuccess();
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
            long id = f.getLong(f.readerIndex() + 8);
            for (Pending p : owed) {
                if (p.id == id) {
                    if (p.answer != null || p.ended) {
                        break; // its deadline answered it
                    }
                    if (p.deadline != null) {
                        p.deadline.cancel(false);
                        p.deadline = null;
                    }
                    p.answer = json.answer(ctx.alloc(), f, p.isVoid);
                    p.promise = promise;
                    flushReady();
                    return;
                }
            }
            promise.trySuccess();
        } finally {
            f.release();
        }
    }

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

    /** The socket took one of a stream's messages: past half a window, the provider may send that much more. */
    private void taken(Pending p, int bytes) {
        p.takenMessages++;
        p.takenBytes += bytes;
        if (p.takenMessages >= ProtocolConstants.INITIAL_STREAM_MESSAGES / 2
                || p.takenBytes >= ProtocolConstants.INITIAL_STREAM_BYTES / 2) {
            int m = p.takenMessages;
            int b = (int) Math.min(p.takenBytes, Integer.MAX_VALUE);
            p.takenMessages = 0;
            p.takenBytes = 0;
            // Later, not from inside a write: the frame decoder may be below on this stack.
            ctx.executor().execute(() -> {
                if (ctx.channel().isActive() && !p.ended) {
                    ctx.fireChannelRead(StreamCodec.encodeCredit(ctx.alloc(), p.id, m, b));
                }
            });
        }
    }

    /** Writes the parts of the stream at the head of the line; returns whether it is done. */
    private boolean writeStream(Pending p) {
        HttpObject part;
        while ((part = p.parts.poll()) != null) {
            if (part instanceof HttpContent c && !(part instanceof LastHttpContent)) {
                int bytes = c.content().readableBytes();
                ctx.write(part).addListener(done -> {
                    if (done.isSuccess()) {
                        taken(p, bytes);
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
                    closeAfter = true;
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
                h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            }
            if (a.gzip()) {
                h.set(HttpHeaderNames.CONTENT_ENCODING, HttpHeaderValues.GZIP);
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
                closeAfter = true;
                break; // nothing after a closing answer
            }
        }
        if (closeAfter && owed.isEmpty() && !wrote && ctx.channel().isActive()) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        if (wrote) {
            ctx.flush();
        }
    }

    private void refuseAndClose(ChannelHandlerContext ctx, HttpJson.Answer a) {
        head = null;
        refusal = null;
        dropBody();
        ctx.channel().config().setAutoRead(false); // nothing more is read from it
        Pending p = new Pending(nextId++, false, null);
        p.answer = a;
        owed.add(p);
        closeAfter = true;
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
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
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
                p.promise.tryFailure(new java.nio.channels.ClosedChannelException());
            }
        }
        super.channelInactive(ctx);
    }
}
