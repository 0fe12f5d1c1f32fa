package io.xrpc.transport.netty;

import static io.xrpc.protocol.ProtocolConstants.FLAG_COMPRESSED;
import static io.xrpc.protocol.ProtocolConstants.FLAG_TIMESTAMPED;
import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_FLAGS;
import static io.xrpc.protocol.ProtocolConstants.TIMESTAMP_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.GzipCompressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.protocol.codec.StreamCodec;
import io.xrpc.transport.Routes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Translates JSON calls over HTTP into XRpc request frames and XRpc answers back into HTTP, so that
 * an HTTP call walks the very path a binary call does (frame decoder, memory budget, router,
 * authenticator, interceptors, admission, the json serializer's allow-list and read limits) and
 * nothing of it is written twice. The mapping is Connect's unary protocol
 * (<a href="https://connectrpc.com/docs/protocol">connectrpc.com</a>): {@code POST /{service}/{method}}
 * with a JSON body, an answer of JSON, errors as {@code {"code", "message"}} with Connect's HTTP
 * statuses. docs/HTTP.md says how parameters, overloads, headers and errors map.
 *
 * <p>One per server; stateless, any event loop.
 */
final class HttpJson {
    /** The deadline budget of a call that names none ({@code Connect-Timeout-Ms}): the XRpc client's default. */
    static final int DEFAULT_BUDGET_MILLIS = 3_000;

    static final String GROUP_HEADER = "xrpc-group";
    static final String VERSION_HEADER = "xrpc-version";
    static final String TIMEOUT_HEADER = "connect-timeout-ms";
    /** Headers carried to the provider as the call's attachments (credentials, W3C trace context). */
    static final List<String> ATTACHED_HEADERS = List.of("authorization", "traceparent", "tracestate", "baggage");

    /** The json serializer's id on the wire (docs/PROTOCOL.md). */
    private static final byte JSON_SERIALIZER = 5;
    /** Reads and writes only trees: no class is ever constructed from a peer's JSON here (16 KiB at most). */
    private static final JsonMapper TREES = JsonMapper.builder().build();

    private final NettyServerTransport server;

    HttpJson(NettyServerTransport server) {
        this.server = server;
    }

    /** What an HTTP request became: a frame for the XRpc path, or an answer given at once. */
    static final class Translated {
        /** The XRpc request frame, or null when {@link #answer} is set. */
        ByteBuf frame;

        Answer answer;
        /** The method returns nothing: an empty result is {@code {}}, not {@code null}. */
        boolean isVoid;
        /** The caller accepts a gzip answer (the frame asks the provider for one). */
        boolean gzip;
        /** The call's deadline budget: the caller is answered {@code deadline_exceeded} when it passes. */
        int budgetMillis;
        /** A server stream: its messages are sent as they come, one JSON value a line (or an event). */
        boolean stream;
        /** The caller asked for server-sent events ({@code Accept: text/event-stream}) rather than lines. */
        boolean sse;
        /** The body came gzip and goes on compressed: the provider may answer gzip whatever was accepted. */
        boolean gzipBody;
    }

    /** The content type of a server stream's answer. */
    static String streamType(boolean sse) {
        return sse ? "text/event-stream" : "application/x-ndjson";
    }

    /** A stream message's JSON as one line, or one {@code data:} event; {@code f} is not released here. */
    ByteBuf messagePart(ByteBufAllocator alloc, ByteBuf f, boolean sse) {
        ByteBuf body = body(f);
        if ((f.getByte(f.readerIndex() + 7) & FLAG_COMPRESSED) != 0) {
            // A stream whose request came gzip: the provider compresses its messages too.
            ByteBuf plain = inflate(alloc, body, server.settings().transport().maxFrameLength());
            body = plain != null ? plain : ByteBufUtil.writeAscii(alloc, "null");
            return sse
                    ? alloc.compositeBuffer(3)
                            .addComponents(
                                    true,
                                    ByteBufUtil.writeAscii(alloc, "data: "),
                                    body,
                                    ByteBufUtil.writeAscii(alloc, "\n\n"))
                    : alloc.compositeBuffer(2).addComponents(true, body, ByteBufUtil.writeAscii(alloc, "\n"));
        }
        if (!sse) {
            return alloc.compositeBuffer(2).addComponents(true, body.retain(), ByteBufUtil.writeAscii(alloc, "\n"));
        }
        return alloc.compositeBuffer(3)
                .addComponents(
                        true,
                        ByteBufUtil.writeAscii(alloc, "data: "),
                        body.retain(),
                        ByteBufUtil.writeAscii(alloc, "\n\n"));
    }

    /**
     * What ends a stream whose answer began: nothing for {@code OK}, else its error as a last line
     * {@code {"error": {...}}} (or an {@code error} event), the body of a unary error inside.
     */
    ByteBuf endPart(ByteBufAllocator alloc, ByteBuf f, boolean sse) {
        int status = f.getByte(f.readerIndex() + 6);
        if (status == RpcStatus.OK.code()) {
            return null;
        }
        Answer a = failure(alloc, RpcStatus.fromCode((byte) status), body(f));
        return errorPart(alloc, a, sse);
    }

    /** An error answer as a stream's last part. Takes {@code a}'s body. */
    static ByteBuf errorPart(ByteBufAllocator alloc, Answer a, boolean sse) {
        return alloc.compositeBuffer(3)
                .addComponents(
                        true,
                        ByteBufUtil.writeAscii(alloc, sse ? "event: error\ndata: " : "{\"error\":"),
                        a.body(),
                        ByteBufUtil.writeAscii(alloc, sse ? "\n\n" : "}\n"));
    }

    /** The type of the XRpc frame {@code f}. */
    static MessageType type(ByteBuf f) {
        return MessageType.fromCode(f.getByte(f.readerIndex() + 3));
    }

    /** The request id of the XRpc frame {@code f}. */
    static long requestId(ByteBuf f) {
        return f.getLong(f.readerIndex() + 8);
    }

    /** The body of the XRpc frame {@code f}, after its timestamp if it has one (a view, not retained). */
    static ByteBuf body(ByteBuf f) {
        int at = f.readerIndex();
        int stamp = (f.getByte(at + 7) & FLAG_TIMESTAMPED) != 0 ? TIMESTAMP_LENGTH : 0;
        return f.slice(at + HEADER_LENGTH + stamp, f.getInt(at + 20) - stamp);
    }

    /** The answer of a call whose deadline passed before the provider answered. */
    static Answer deadlinePassed(ByteBufAllocator alloc, String uri, int budgetMillis) {
        return error(
                alloc,
                504,
                "deadline_exceeded",
                uri + " did not answer within its deadline of " + budgetMillis + " ms (Connect-Timeout-Ms; "
                        + DEFAULT_BUDGET_MILLIS + " ms when none is sent)");
    }

    /** An HTTP answer: its status, JSON body (owned) and whether the body is gzip. */
    record Answer(int status, ByteBuf body, boolean gzip, String type) {
        Answer(int status, ByteBuf body, boolean gzip) {
            this(status, body, gzip, "application/json");
        }
    }

    /**
     * An answer decided before the XRpc path (a refusal), kept as values until it is sent, so that
     * a request that is reset or closed meanwhile leaves no buffer behind.
     */
    record Refusal(int status, String code, String message) {
        Answer answer(ByteBufAllocator alloc) {
            return error(alloc, status, code, message);
        }
    }

    /**
     * The memory budget a request body on this connection reserves from: the whole one once the
     * connection carried an authenticated call (or the server has no authenticator), else the
     * unauthenticated connections' share, as the frame decoder chooses for a frame.
     */
    MemoryBudget budgetFor(ChannelHandlerContext ctx) {
        ServerChannelHandler h = ctx.pipeline().get(ServerChannelHandler.class);
        return !server.settings().authenticates() || h != null && h.isAuthenticated()
                ? server.memoryBudget()
                : server.unauthenticatedBudget();
    }

    /** The refusal of a body the memory budget had no room for. */
    Refusal busy(MemoryBudget budget) {
        return new Refusal(
                503,
                "unavailable",
                "server " + server.endpoint() + " holds its memory budget for requests in transit (" + budget.limit()
                        + " bytes) in other requests; this body was not read");
    }

    /**
     * What the peer's socket took of one server stream since credit was last granted back: past
     * half the provider's window, that much is granted again.
     */
    static final class Taken {
        private int messages;
        private long bytes;

        /** Grants the provider stream {@code id} more credit, later (not inside a write), while {@code open}. */
        void add(ChannelHandlerContext ctx, long id, int size, BooleanSupplier open) {
            messages++;
            bytes += size;
            if (messages < ProtocolConstants.INITIAL_STREAM_MESSAGES / 2
                    && bytes < ProtocolConstants.INITIAL_STREAM_BYTES / 2) {
                return;
            }
            int m = messages;
            int b = (int) Math.min(bytes, Integer.MAX_VALUE);
            messages = 0;
            bytes = 0;
            // The frame decoder may be below on this stack: the CREDIT goes in from the event loop's queue.
            ctx.executor().execute(() -> {
                if (open.getAsBoolean()) {
                    ctx.fireChannelRead(StreamCodec.encodeCredit(ctx.alloc(), id, m, b));
                }
            });
        }
    }

    /** The console may run its own inline script and call this server, and nothing else. */
    static final String CONSOLE_POLICY =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self';"
                    + " frame-ancestors 'none'";

    /** Where the console page is served, when the server enables it. */
    static final String CONSOLE_PATH = "/xrpc/console";

    private static volatile byte[] consolePage;

    /** The console: one self-contained page (no fetch but this server's own JSON calls). */
    private static byte[] consolePage() {
        byte[] page = consolePage;
        if (page == null) {
            try (InputStream in = HttpJson.class.getResourceAsStream("console.html")) {
                page = in.readAllBytes();
            } catch (IOException | NullPointerException e) {
                throw new IllegalStateException("console.html is missing from xrpc-core's jar", e);
            }
            consolePage = page;
        }
        return page;
    }

    /**
     * The frame of request {@code id}, or the answer given at once. Owns {@code body}. Never throws:
     * whatever a request holds, it is answered.
     *
     * @param headers a request header by its lower-case name, or null
     */
    Translated request(
            ByteBufAllocator alloc,
            long id,
            String method,
            String uri,
            Function<String, String> headers,
            ByteBuf body) {
        Translated t = new Translated();
        try {
            translate(t, alloc, id, method, uri, headers, body);
        } catch (IllegalArgumentException bad) {
            release(t);
            t.answer = error(alloc, 400, "invalid_argument", "malformed request: " + bad.getMessage());
        } catch (RuntimeException e) {
            release(t);
            t.answer = error(alloc, 500, "internal", "the request could not be translated: " + e);
        } finally {
            body.release();
        }
        return t;
    }

    private static void release(Translated t) {
        if (t.frame != null) {
            t.frame.release();
            t.frame = null;
        }
        if (t.answer != null) {
            t.answer.body().release();
            t.answer = null;
        }
    }

    private void translate(
            Translated t,
            ByteBufAllocator alloc,
            long id,
            String method,
            String uri,
            Function<String, String> headers,
            ByteBuf body) {
        t.gzip = accepts(headers.apply("accept-encoding"), "gzip");
        String path = new QueryStringDecoder(uri).path(); // throws on a malformed escape: 400
        if ("GET".equals(method) && CONSOLE_PATH.equals(path)) {
            if (!server.settings().httpConsole()) {
                t.answer = error(
                        alloc,
                        404,
                        "not_found",
                        "the console is off on this server: RpcServer.Builder.httpConsole(true)"
                                + " (xrpc.server.http.console: true) turns it on");
                return;
            }
            byte[] page = consolePage();
            t.answer = new Answer(200, alloc.buffer(page.length).writeBytes(page), false, "text/html; charset=utf-8");
            return;
        }
        if (!"POST".equals(method)) {
            t.answer = error(
                    alloc, 405, "unimplemented", method + " " + quote(uri) + ": calls are POST /{service}/{method}");
            return;
        }
        String type = headers.apply("content-type");
        if (type != null && !isJson(type)) {
            t.answer = error(
                    alloc,
                    415,
                    "invalid_argument",
                    "content-type " + quote(type) + " is not served: send application/json");
            return;
        }
        int slash = path.indexOf('/', 1);
        if (!path.startsWith("/") || slash < 0 || slash == path.length() - 1 || path.indexOf('/', slash + 1) >= 0) {
            t.answer =
                    error(alloc, 404, "unimplemented", "no call at " + quote(path) + ": expected /{service}/{method}");
            return;
        }
        String serviceKey = new ServiceKey(
                        path.substring(1, slash), headers.apply(VERSION_HEADER), headers.apply(GROUP_HEADER))
                .toString();
        String name = path.substring(slash + 1);
        Routes.Route route;
        String signature;
        if (name.indexOf('(') >= 0) {
            signature = name;
            route = server.routes().find(serviceKey, signature);
        } else {
            List<Routes.Route> named = server.routes().named(serviceKey, name);
            if (named.size() > 1) {
                List<String> all = new ArrayList<>();
                for (Routes.Route r : named) {
                    all.add(r.descriptor().signature());
                }
                t.answer = error(
                        alloc,
                        400,
                        "invalid_argument",
                        serviceKey + "#" + name + " is overloaded: name one in the path, as one of " + all);
                return;
            }
            route = named.isEmpty() ? null : named.get(0);
            // Unknown: the router answers it, naming what the service has.
            signature = route == null ? name : route.descriptor().signature();
        }
        if (route != null && route.descriptor().isStream()) {
            if (route.descriptor().shape().callerStreams()) {
                t.answer = error(
                        alloc,
                        501,
                        "unimplemented",
                        serviceKey + "#" + signature
                                + " takes a stream from its caller; over HTTP only calls of one answer and server"
                                + " streams are served (an XRpc client sends streams)");
                return;
            }
            t.stream = true;
            String accept = headers.apply("accept");
            t.sse = accept != null && accept.toLowerCase(Locale.ROOT).contains("text/event-stream");
        }
        int budget = DEFAULT_BUDGET_MILLIS;
        String timeout = headers.apply(TIMEOUT_HEADER);
        if (timeout != null) {
            budget = parseTimeout(timeout);
            if (budget < 0) {
                t.answer = error(
                        alloc,
                        400,
                        "invalid_argument",
                        "Connect-Timeout-Ms " + quote(timeout) + " is not a number of milliseconds (1 to 10 digits)");
                return;
            }
        }
        boolean gzipBody = false;
        String encoding = headers.apply("content-encoding");
        if (encoding != null && !"identity".equalsIgnoreCase(encoding)) {
            if (!"gzip".equalsIgnoreCase(encoding)) {
                t.answer = error(
                        alloc,
                        415,
                        "invalid_argument",
                        "content-encoding " + quote(encoding) + " is not served: gzip or none");
                return;
            }
            // Passed on compressed: the provider inflates it after the authenticator, off the event
            // loop and within the frame limit, as it inflates a binary client's arguments.
            gzipBody = body.isReadable();
        }
        t.isVoid = route != null && route.descriptor().isVoid();
        t.budgetMillis = budget;
        t.gzipBody = gzipBody;
        int parameters = route == null ? -1 : route.descriptor().wireParameterTypes().length;
        ByteBuf f = frame(
                alloc,
                id,
                budget,
                t.gzip || gzipBody,
                gzipBody,
                t.stream,
                serviceKey,
                signature,
                headers,
                body,
                parameters);
        int max = server.settings().transport().maxFrameLength();
        if (f.readableBytes() - HEADER_LENGTH > max) {
            f.release();
            t.answer = error(
                    alloc,
                    413,
                    "resource_exhausted",
                    "the request is over the frame limit of " + max + " bytes (maxFrameLength) with its head");
            return;
        }
        t.frame = f;
    }

    /** {@code application/json}, with parameters or none. */
    private static boolean isJson(String type) {
        String t = type.trim().toLowerCase(Locale.ROOT);
        return t.equals("application/json") || t.startsWith("application/json;") || t.startsWith("application/json ");
    }

    /** "[" and "]" as gzip members: around a gzip body they inflate to the one-argument array. */
    private static final byte[] GZIP_OPEN = gzip("[");

    private static final byte[] GZIP_CLOSE = gzip("]");

    private static byte[] gzip(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(out)) {
            z.write(s.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
        return out.toByteArray();
    }

    /**
     * The XRpc request: the head as any client writes it, then the arguments as the json serializer
     * reads them (one array); a method of one parameter takes the body as that parameter (Connect's
     * one message), one of none ignores it. A gzip body stays compressed (flags bit 0).
     */
    private static ByteBuf frame(
            ByteBufAllocator alloc,
            long id,
            int budget,
            boolean gzip,
            boolean compressed,
            boolean stream,
            String serviceKey,
            String signature,
            Function<String, String> headers,
            ByteBuf body,
            int parameters) {
        List<String> attached = new ArrayList<>(2 * ATTACHED_HEADERS.size());
        for (String h : ATTACHED_HEADERS) {
            String v = headers.apply(h);
            if (v != null) {
                attached.add(h);
                attached.add(v);
            }
        }
        int args = parameters == 0
                ? 0
                : parameters != 1
                        ? body.readableBytes()
                        : compressed
                                ? GZIP_OPEN.length + body.readableBytes() + GZIP_CLOSE.length
                                : Math.max(4, body.readableBytes()) + 2;
        ByteBuf f = requestHead(
                alloc, id, budget, JSON_SERIALIZER, gzip, compressed, serviceKey, signature, attached, stream, args);
        if (parameters == 1 && compressed) {
            f.writeBytes(GZIP_OPEN)
                    .writeBytes(body, body.readerIndex(), body.readableBytes())
                    .writeBytes(GZIP_CLOSE);
        } else if (parameters == 1) {
            f.writeByte('[');
            if (isBlank(body)) {
                f.writeBytes("null".getBytes(StandardCharsets.US_ASCII));
            } else {
                f.writeBytes(body, body.readerIndex(), body.readableBytes());
            }
            f.writeByte(']');
        } else if (parameters != 0) {
            f.writeBytes(body, body.readerIndex(), body.readableBytes());
        }
        f.setInt(OFFSET_BODY_LENGTH, f.readableBytes() - HEADER_LENGTH);
        return f;
    }

    /**
     * An XRpc REQUEST frame's header and head, as any client writes them, in a buffer sized
     * exactly for them and {@code bodyLength} more bytes (so that what the memory budget counts is
     * what is held); the caller writes the body and sets the body length. {@code attachments}
     * alternates names and values; a stream call adds the stream attachment.
     */
    static ByteBuf requestHead(
            ByteBufAllocator alloc,
            long id,
            int budget,
            byte serializer,
            boolean gzip,
            boolean compressed,
            String serviceKey,
            String signature,
            List<String> attachments,
            boolean stream,
            int bodyLength) {
        int head = 2 + ByteBufUtil.utf8Bytes(serviceKey) + 2 + ByteBufUtil.utf8Bytes(signature) + 2;
        for (String a : attachments) {
            head += 2 + ByteBufUtil.utf8Bytes(a);
        }
        if (stream) {
            head += 4 + ProtocolConstants.STREAM_ATTACHMENT.length() + 1;
        }
        ByteBuf f = alloc.ioBuffer(HEADER_LENGTH + head + bodyLength);
        RpcCodec.writeHeader(
                f,
                MessageType.REQUEST,
                serializer,
                gzip ? GzipCompressor.ID : IdentityCompressor.ID,
                (byte) 0,
                id,
                budget);
        if (compressed) {
            f.setByte(OFFSET_FLAGS, FLAG_COMPRESSED);
        }
        RpcCodec.writeShortString(f, serviceKey);
        RpcCodec.writeShortString(f, signature);
        f.writeShort(attachments.size() / 2 + (stream ? 1 : 0));
        for (String a : attachments) {
            RpcCodec.writeShortString(f, a);
        }
        if (stream) {
            RpcCodec.writeShortString(f, ProtocolConstants.STREAM_ATTACHMENT);
            RpcCodec.writeShortString(f, "1");
        }
        return f;
    }

    /**
     * The HTTP answer to an XRpc response frame {@code f} (not released here), or null when the
     * frame is not an answer (a pong, a GOAWAY).
     */
    Answer answer(ByteBufAllocator alloc, ByteBuf f, boolean isVoid, boolean acceptsGzip) {
        int at = f.readerIndex();
        MessageType type = MessageType.fromCode(f.getByte(at + 3));
        if (type != MessageType.RESPONSE) {
            return null;
        }
        int status = f.getByte(at + 6);
        int flags = f.getByte(at + 7);
        int stamp = (flags & FLAG_TIMESTAMPED) != 0 ? TIMESTAMP_LENGTH : 0;
        ByteBuf body = f.slice(at + HEADER_LENGTH + stamp, f.getInt(at + 20) - stamp);
        if (status == RpcStatus.OK.code()) {
            if (!body.isReadable()) {
                return new Answer(200, ByteBufUtil.writeAscii(alloc, isVoid ? "{}" : "null"), false);
            }
            boolean compressed = (flags & FLAG_COMPRESSED) != 0;
            if (compressed && !acceptsGzip) {
                // The caller sent gzip but did not ask for it back: the provider's own answer, inflated here.
                ByteBuf plain =
                        inflate(alloc, body, server.settings().transport().maxFrameLength());
                return plain != null
                        ? new Answer(200, plain, false)
                        : error(alloc, 500, "internal", "the provider's gzip answer could not be inflated");
            }
            return new Answer(200, body.retain(), compressed);
        }
        return failure(alloc, RpcStatus.fromCode((byte) status), body);
    }

    /** The Connect error for a failed answer's body (ErrorCodec's form). */
    private static Answer failure(ByteBufAllocator alloc, RpcStatus s, ByteBuf body) {
        ErrorCodec.RemoteError e;
        try {
            e = ErrorCodec.readError(body);
        } catch (RuntimeException malformed) {
            return error(alloc, 500, "internal", "the provider's error could not be read: " + malformed.getMessage());
        }
        JsonNode carried = null;
        if (s == RpcStatus.APPLICATION_ERROR && body.isReadable()) {
            try (InputStream in = new ByteBufInputStream(body)) {
                carried = TREES.readTree(in);
            } catch (IOException | RuntimeException unreadable) {
                carried = null; // the text answer still says what was thrown
            }
        }
        return errorAnswer(alloc, s, e, carried);
    }

    private static Answer errorAnswer(ByteBufAllocator alloc, RpcStatus s, ErrorCodec.RemoteError e, JsonNode carried) {
        String code = connectCode(s);
        ObjectNode o = TREES.createObjectNode();
        o.put("code", code);
        o.put("message", e.message() == null ? s.name() : e.message());
        o.put("xrpcStatus", s.name());
        if (e.className() != null) {
            ObjectNode x = o.putObject("exception");
            x.put("class", e.className());
            if (carried != null && carried.isObject()) {
                carriedFields(x, carried);
            }
        }
        return new Answer(httpStatus(code), json(alloc, o), false);
    }

    /** The declared exception's message and own fields (by simple name), as the provider's json serializer wrote them. */
    private static void carriedFields(ObjectNode x, JsonNode carried) {
        JsonNode message = carried.get("message");
        if (message != null && message.isString()) {
            x.put("message", message.stringValue());
        }
        JsonNode names = carried.get("fieldNames");
        JsonNode values = carried.get("fieldValues");
        if (names == null || !names.isArray() || values == null || !values.isString()) {
            return;
        }
        JsonNode parsed;
        try {
            parsed = TREES.readTree(Base64.getDecoder().decode(values.stringValue()));
        } catch (IllegalArgumentException | JacksonException unreadable) {
            return;
        }
        if (parsed == null || !parsed.isArray()) {
            return;
        }
        ObjectNode fields = x.putObject("fields");
        for (int i = 0; i < names.size() && i < parsed.size(); i++) {
            String n = names.get(i).asString();
            fields.set(n.substring(n.lastIndexOf('.') + 1), parsed.get(i));
        }
    }

    private static ByteBuf json(ByteBufAllocator alloc, JsonNode node) {
        byte[] bytes = TREES.writeValueAsBytes(node);
        return alloc.buffer(bytes.length).writeBytes(bytes);
    }

    /** Connect's error code for an XRpc status. */
    static String connectCode(RpcStatus s) {
        return switch (s) {
            case OK -> "ok";
            case APPLICATION_ERROR -> "unknown";
            case SERVER_BUSY, UNAVAILABLE, CONNECTION_CLOSED -> "unavailable";
            case DEADLINE_EXCEEDED -> "deadline_exceeded";
            case SERVICE_NOT_FOUND, METHOD_NOT_FOUND -> "unimplemented";
            case SERIALIZATION_ERROR -> "invalid_argument";
            case CANCELLED -> "canceled";
            case INTERNAL -> "internal";
            case RESOURCE_EXHAUSTED -> "resource_exhausted";
            case UNAUTHENTICATED -> "unauthenticated";
        };
    }

    /** Connect's HTTP status for its error code. */
    static int httpStatus(String code) {
        return switch (code) {
            case "canceled" -> 499;
            case "invalid_argument", "failed_precondition", "out_of_range" -> 400;
            case "deadline_exceeded" -> 504;
            case "not_found" -> 404;
            case "unimplemented" -> 501;
            case "already_exists", "aborted" -> 409;
            case "permission_denied" -> 403;
            case "resource_exhausted" -> 429;
            case "unavailable" -> 503;
            case "unauthenticated" -> 401;
            default -> 500;
        };
    }

    /** A Connect error answered here, before the XRpc path: {@code {"code", "message"}}. */
    static Answer error(ByteBufAllocator alloc, int status, String code, String message) {
        ObjectNode o = TREES.createObjectNode();
        o.put("code", code);
        o.put("message", message);
        return new Answer(status, json(alloc, o), false);
    }

    /**
     * Whether a request from {@code origin} to {@code host} (its Host or :authority) may call: one
     * without an Origin is no browser's, one from the server's own origin (a page it served, such as
     * the console) is not cross-origin, any other only when listed.
     */
    boolean allowsOrigin(String origin, String host) {
        if (origin == null) {
            return true;
        }
        int scheme = origin.indexOf("://");
        if (server.settings().httpConsole()
                && host != null
                && scheme > 0
                && origin.substring(scheme + 3).equalsIgnoreCase(host)
                && isAddressOrLocalhost(host)) {
            // The console's own calls. Only by address or localhost: a name the peer chose could be
            // rebound to this server by an attacker's DNS (DNS rebinding); such names are listed.
            return true;
        }
        return allowsOrigin(origin);
    }

    private static boolean isAddressOrLocalhost(String hostAndPort) {
        String h = hostAndPort;
        if (h.startsWith("[")) {
            return h.indexOf(']') > 0; // an IPv6 literal
        }
        int colon = h.lastIndexOf(':');
        if (colon >= 0) {
            h = h.substring(0, colon);
        }
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        return !h.isEmpty() && h.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
    }

    /** Whether CORS lists {@code origin} as allowed to call from another origin. */
    boolean allowsOrigin(String origin) {
        if (origin == null) {
            return true;
        }
        List<String> allowed = server.settings().httpAllowedOrigins();
        return allowed.contains("*") || allowed.contains(origin);
    }

    /** Request headers a browser may send cross-origin (CORS preflight). */
    static final String ALLOWED_HEADERS =
            "content-type, content-encoding, accept-encoding, authorization, connect-timeout-ms,"
                    + " connect-protocol-version, xrpc-group, xrpc-version, traceparent, tracestate, baggage";

    /**
     * The CORS headers of an answer to {@code origin} when it is allowed (none for a request
     * without an Origin); a preflight's also say what may be sent.
     */
    void corsHeaders(String origin, boolean preflight, java.util.function.BiConsumer<String, String> set) {
        if (origin == null || !allowsOrigin(origin)) {
            return;
        }
        set.accept("access-control-allow-origin", origin);
        set.accept("vary", "origin");
        if (preflight) {
            set.accept("access-control-allow-methods", "POST, OPTIONS");
            set.accept("access-control-allow-headers", ALLOWED_HEADERS);
            set.accept("access-control-max-age", "7200");
        }
    }

    /** The plain bytes of a gzip body, at most {@code max}; null when corrupt or larger. */
    static ByteBuf inflate(ByteBufAllocator alloc, ByteBuf body, int max) {
        ByteBuf out = alloc.buffer(Math.min(Math.max(body.readableBytes() * 4, 256), max + 1));
        try (InputStream in = new GZIPInputStream(new ByteBufInputStream(body.duplicate()))) {
            for (; ; ) {
                int n = out.writeBytes(in, Math.min(8192, max + 1 - out.readableBytes()));
                if (n < 0) {
                    return out;
                }
                if (out.readableBytes() > max) {
                    out.release();
                    return null;
                }
            }
        } catch (IOException | RuntimeException corrupt) {
            out.release();
            return null;
        }
    }

    private static int parseTimeout(String v) {
        if (v.isEmpty() || v.length() > 10) {
            return -1;
        }
        long ms = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            ms = ms * 10 + (c - '0');
        }
        return (int) Math.min(ms, Integer.MAX_VALUE);
    }

    /** Whether an Accept-Encoding header accepts {@code coding}: named with a q-value above 0. */
    static boolean accepts(String header, String coding) {
        if (header == null) {
            return false;
        }
        for (String part : header.split(",")) {
            String[] p = part.trim().split(";");
            if (!p[0].trim().equalsIgnoreCase(coding)) {
                continue;
            }
            for (int i = 1; i < p.length; i++) {
                String q = p[i].trim();
                if (q.length() > 2 && (q.charAt(0) == 'q' || q.charAt(0) == 'Q') && q.charAt(1) == '=') {
                    try {
                        return Double.parseDouble(q.substring(2)) > 0;
                    } catch (NumberFormatException bad) {
                        return false;
                    }
                }
            }
            return true;
        }
        return false;
    }

    private static boolean isBlank(ByteBuf b) {
        for (int i = b.readerIndex(); i < b.writerIndex(); i++) {
            byte c = b.getByte(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return false;
            }
        }
        return true;
    }

    static String quote(String s) {
        return "'" + (s.length() > 200 ? s.substring(0, 200) + "..." : s) + "'";
    }
}
