package io.xrpc.transport.netty;

import static io.xrpc.protocol.ProtocolConstants.FLAG_COMPRESSED;
import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_FLAGS;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.GzipCompressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.transport.Routes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gRPC wire on a server's HTTP/2 side (docs/GRPC.md): a request of content type
 * {@code application/grpc} becomes an XRpc REQUEST frame in the {@code protobuf} serializer (the
 * layout {@link ProtoContract} derives from the interface), fired into the same path as a binary
 * call; the answer frame is turned back into gRPC's length-prefixed message and
 * {@code grpc-status} trailers. {@code grpc-timeout} is the call's deadline budget,
 * {@code grpc-encoding: gzip} a compressed message, other metadata the call's attachments.
 */
final class GrpcWire {
    /** gRPC's status codes by number; Connect's codes are their lower-case names. */
    private static final List<String> CODES = List.of(
            "ok",
            "canceled",
            "unknown",
            "invalid_argument",
            "deadline_exceeded",
            "not_found",
            "already_exists",
            "permission_denied",
            "resource_exhausted",
            "failed_precondition",
            "aborted",
            "out_of_range",
            "unimplemented",
            "internal",
            "unavailable",
            "data_loss",
            "unauthenticated");

    static final int UNKNOWN = 2;
    static final int INVALID_ARGUMENT = 3;
    static final int DEADLINE_EXCEEDED = 4;
    static final int UNIMPLEMENTED = 12;
    static final int INTERNAL = 13;

    /** The {@code protobuf} serializer's id on the wire. */
    static final byte PROTOBUF_SERIALIZER = 6;

    /** gRPC's own services XRpc serves as an interface of its own: reflection (io.xrpc.server.GrpcReflection). */
    private static final Map<String, String> ALIASES = Map.of(
            "grpc.reflection.v1.ServerReflection", "io.xrpc.server.GrpcReflection",
            "grpc.reflection.v1alpha.ServerReflection", "io.xrpc.server.GrpcReflection");

    /** Headers that are the protocol's, not the caller's metadata. */
    private static final List<String> RESERVED = List.of("content-type", "te", "user-agent", "content-length");

    private final NettyServerTransport server;
    /** The service key of each gRPC service name a call reached without version or group (bounded by the exports). */
    private final Map<String, String> keys = new ConcurrentHashMap<>();
    /** The contract of each interface a gRPC call reached, by interface name (bounded by the exports). */
    private final Map<String, ProtoContract> contracts = new ConcurrentHashMap<>();

    GrpcWire(NettyServerTransport server) {
        this.server = server;
    }

    /** Whether a content type is gRPC's: {@code application/grpc}, with {@code +proto} or none. */
    static boolean isGrpc(CharSequence type) {
        return subtypeAt(type) >= 0;
    }

    private static final String GRPC = "application/grpc";

    /**
     * Where what follows {@code application/grpc} starts in a content type (its length when
     * nothing does), or -1 when it is not gRPC's; compared in place, without a copy per request.
     */
    private static int subtypeAt(CharSequence type) {
        if (type == null || !AsciiString.regionMatches(type, true, 0, GRPC, 0, GRPC.length())) {
            return -1;
        }
        int n = GRPC.length();
        if (type.length() == n) {
            return n;
        }
        char next = type.charAt(n);
        return next == '+' || next == ';' ? n : -1;
    }

    /** Whether a gRPC content type carries protobuf: no subtype, or {@code +proto}. */
    private static boolean isProtobuf(CharSequence type) {
        int at = subtypeAt(type);
        if (at < 0) {
            return false;
        }
        if (at == type.length() || type.charAt(at) == ';') {
            return true;
        }
        int end = at + 1 + "proto".length();
        return AsciiString.regionMatches(type, true, at + 1, "proto", 0, "proto".length())
                && (type.length() == end || type.charAt(end) == ';');
    }

    /** gRPC's status code for Connect's (and so XRpc's) error code. */
    static int code(String connect) {
        int i = CODES.indexOf(connect);
        return i < 0 ? UNKNOWN : i;
    }

    /** gRPC's code for an XRpc status. */
    static int code(RpcStatus s) {
        return code(HttpJson.connectCode(s));
    }

    /** A gRPC status given here, before or instead of the XRpc path. */
    record Status(int code, String message) {}

    /** What a gRPC request's headers name: the method and its contract, or why it is refused. */
    static final class Target {
        Status refused;
        String serviceKey;
        Routes.Route route;
        ProtoContract contract;
        ProtoContract.Rpc rpc;
        int budgetMillis;
        boolean gzip;
    }

    /** What a gRPC request became. */
    static final class Translated {
        ByteBuf frame;
        Status refused;
    }

    /** Looks up what a gRPC request's headers name, and reads its deadline and encoding. */
    Target resolve(Http2Headers headers) {
        Target t = new Target();
        CharSequence type = headers.get("content-type");
        if (!isProtobuf(type)) {
            t.refused = new Status(
                    UNIMPLEMENTED, "content-type " + type + " is not served: application/grpc (protobuf) is");
            return t;
        }
        String path = String.valueOf(headers.path());
        int slash = path.lastIndexOf('/');
        if (!path.startsWith("/") || slash <= 1 || slash == path.length() - 1) {
            t.refused = new Status(
                    UNIMPLEMENTED, "no method at " + HttpJson.quote(path) + ": expected /{package.Service}/{method}");
            return t;
        }
        String service = path.substring(1, slash);
        service = ALIASES.getOrDefault(service, service);
        String method = path.substring(slash + 1);
        String version = header(headers, HttpJson.VERSION_HEADER);
        String group = header(headers, HttpJson.GROUP_HEADER);
        String serviceKey = serviceKey(service, version, group);
        List<Routes.Route> named = server.routes().named(serviceKey, method);
        if (named.isEmpty()) {
            t.refused = new Status(
                    UNIMPLEMENTED,
                    server.routes().hasService(serviceKey)
                            ? serviceKey + " has no method " + HttpJson.quote(method)
                            : "no service " + serviceKey + " on this server"
                                    + (server.routes().exportedAs(serviceKey).isEmpty()
                                            ? ""
                                            : " (exported as " + server.routes().exportedAs(serviceKey)
                                                    + "; xrpc-version and xrpc-group metadata pick one)"));
            return t;
        }
        Routes.Route route = named.get(0);
        ProtoContract contract;
        try {
            contract = contract(route);
        } catch (RuntimeException | LinkageError e) { // never thrown on the event loop: the call is refused
            t.refused = new Status(
                    UNIMPLEMENTED,
                    serviceKey + " has no gRPC contract: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return t;
        }
        ProtoContract.Rpc rpc = named.size() == 1 ? contract.rpc(method) : null;
        if (rpc == null) {
            t.refused = new Status(
                    UNIMPLEMENTED,
                    serviceKey + "#" + method + " is not callable over gRPC: " + why(contract, method)
                            + " (it is over JSON and XRpc's binary protocol)");
            return t;
        }
        t.serviceKey = serviceKey;
        t.route = route;
        t.contract = contract;
        t.rpc = rpc;
        int budget = HttpJson.DEFAULT_BUDGET_MILLIS;
        String timeout = header(headers, "grpc-timeout");
        if (timeout != null) {
            budget = parseTimeout(timeout);
            if (budget < 0) {
                t.refused = new Status(
                        INVALID_ARGUMENT,
                        "grpc-timeout " + HttpJson.quote(timeout)
                                + " is not 1 to 8 digits and a unit of H, M, S, m, u or n");
                return t;
            }
        }
        t.budgetMillis = budget;
        String encoding = header(headers, "grpc-encoding");
        if (encoding != null && !encoding.equalsIgnoreCase("identity") && !encoding.equalsIgnoreCase("gzip")) {
            t.refused = new Status(
                    UNIMPLEMENTED, "grpc-encoding " + HttpJson.quote(encoding) + " is not served: gzip or identity");
            return t;
        }
        t.gzip = encoding != null && encoding.equalsIgnoreCase("gzip");
        return t;
    }

    /**
     * The REQUEST frame of a resolved call. A call of one request message passes its whole body,
     * which must hold exactly that message; a call whose caller streams passes none (its messages
     * follow as stream messages).
     */
    Translated request(ByteBufAllocator alloc, long id, Http2Headers headers, Target target, ByteBuf body) {
        Translated t = new Translated();
        int messageAt = 0;
        int messageLength = 0;
        boolean compressed = false;
        if (!target.rpc.clientStreaming()) {
            int n = body.readableBytes();
            if (n < 5) {
                t.refused = new Status(
                        INVALID_ARGUMENT,
                        "the request holds " + n + " bytes, not one length-prefixed message (5 bytes and the message)");
                return t;
            }
            int flag = body.getUnsignedByte(body.readerIndex());
            long length = body.getUnsignedInt(body.readerIndex() + 1);
            if (flag > 1 || length != n - 5) {
                t.refused = new Status(
                        INVALID_ARGUMENT,
                        flag > 1
                                ? "message flag " + flag + " is not 0 or 1"
                                : "the message claims " + length + " bytes where " + (n - 5)
                                        + " follow its prefix (one message per call)");
                return t;
            }
            compressed = flag == 1;
            if (compressed && !target.gzip) {
                t.refused = new Status(INTERNAL, "a compressed message without grpc-encoding: gzip");
                return t;
            }
            messageAt = body.readerIndex() + 5;
            messageLength = (int) length;
        }
        ByteBuf f = frame(
                alloc,
                id,
                target.budgetMillis,
                compressed,
                target.rpc.serverStreaming() || target.rpc.clientStreaming(),
                target.serviceKey,
                target.route.descriptor().signature(),
                headers,
                body,
                messageAt,
                messageLength);
        int max = server.settings().transport().maxFrameLength();
        if (f.readableBytes() - HEADER_LENGTH > max) {
            f.release();
            t.refused = new Status(
                    code("resource_exhausted"),
                    "the request is over the frame limit of " + max + " bytes (maxFrameLength) with its metadata");
            return t;
        }
        t.frame = f;
        return t;
    }

    /** A caller's message ({@code message}: its five-byte prefix and bytes) as a STREAM_MESSAGE of call {@code id}. */
    static ByteBuf streamMessage(ByteBufAllocator alloc, long id, ByteBuf message) {
        boolean compressed = message.getByte(message.readerIndex()) == 1;
        int length = message.readableBytes() - 5;
        ByteBuf f = alloc.ioBuffer(HEADER_LENGTH + length);
        RpcCodec.writeHeader(
                f,
                MessageType.STREAM_MESSAGE,
                PROTOBUF_SERIALIZER,
                compressed ? GzipCompressor.ID : IdentityCompressor.ID,
                (byte) 0,
                id,
                0);
        if (compressed) {
            f.setByte(OFFSET_FLAGS, FLAG_COMPRESSED);
        }
        f.writeBytes(message, message.readerIndex() + 5, length);
        f.setInt(OFFSET_BODY_LENGTH, length);
        return f;
    }

    private static String why(ProtoContract contract, String method) {
        for (String p : contract.problems()) {
            if (p.startsWith(method + " ") || p.startsWith(method + "(")) {
                return p;
            }
        }
        return "it is not in " + contract.fullServiceName();
    }

    /**
     * The key of the service a gRPC path names: its name as the interface's, or, for an interface
     * nested in a class (whose proto package holds the outer class), with the last dots as '$'.
     */
    private String serviceKey(String service, String version, String group) {
        boolean plain = version == null && group == null;
        if (plain) {
            String known = keys.get(service);
            if (known != null && server.routes().hasService(known)) {
                return known;
            }
        }
        String key = findServiceKey(service, version, group);
        if (plain && server.routes().hasService(key)) {
            keys.put(service, key); // only exported keys: as many as the server's exports
        }
        return key;
    }

    private String findServiceKey(String service, String version, String group) {
        String name = service;
        for (int i = 0; i < 4; i++) {
            String key = new ServiceKey(name, version, group).toString();
            if (server.routes().hasService(key)) {
                return key;
            }
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                break;
            }
            name = name.substring(0, dot) + '$' + name.substring(dot + 1);
        }
        return new ServiceKey(service, version, group).toString();
    }

    private ProtoContract contract(Routes.Route route) {
        String name = route.serviceKey().interfaceName();
        ProtoContract c = contracts.get(name);
        if (c == null) {
            Class<?> declaring = route.descriptor().method().getDeclaringClass();
            Class<?> iface = declaring;
            try {
                iface = Class.forName(name, false, declaring.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // the declaring interface describes the method as well
            }
            c = ProtoContract.of(iface);
            contracts.put(name, c);
        }
        return c;
    }

    /** The XRpc request: the head as any client writes it, then the message as the protobuf serializer reads it. */
    private static ByteBuf frame(
            ByteBufAllocator alloc,
            long id,
            int budget,
            boolean compressed,
            boolean stream,
            String serviceKey,
            String signature,
            Http2Headers headers,
            ByteBuf body,
            int messageAt,
            int messageLength) {
        List<String> attached = new ArrayList<>();
        for (Map.Entry<CharSequence, CharSequence> h : headers) {
            if (isMetadata(h.getKey())) {
                attached.add(h.getKey().toString());
                attached.add(h.getValue().toString());
            }
        }
        ByteBuf f = HttpJson.requestHead(
                alloc,
                id,
                budget,
                PROTOBUF_SERIALIZER,
                compressed,
                compressed,
                serviceKey,
                signature,
                attached,
                stream,
                messageLength);
        if (messageLength > 0) {
            f.writeBytes(body, messageAt, messageLength);
        }
        f.setInt(OFFSET_BODY_LENGTH, f.readableBytes() - HEADER_LENGTH);
        return f;
    }

    /** A caller's metadata: not a pseudo-header, not gRPC's or HTTP's own, not binary. */
    private static boolean isMetadata(CharSequence name) {
        if (name.length() == 0 || name.charAt(0) == ':') {
            return false;
        }
        String n = name.toString();
        return !n.startsWith("grpc-")
                && !n.endsWith("-bin")
                && !RESERVED.contains(n)
                && !n.equals(HttpJson.VERSION_HEADER)
                && !n.equals(HttpJson.GROUP_HEADER);
    }

    /** {@code grpc-timeout}: 1 to 8 digits and a unit; milliseconds, at least 1, at most an int's worth. */
    static int parseTimeout(String v) {
        int n = v.length();
        if (n < 2 || n > 9) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < n - 1; i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        double ms = switch (v.charAt(n - 1)) {
            case 'H' -> value * 3_600_000d;
            case 'M' -> value * 60_000d;
            case 'S' -> value * 1_000d;
            case 'm' -> value;
            case 'u' -> value / 1_000d;
            case 'n' -> value / 1_000_000d;
            default -> -1;
        };
        if (ms < 0) {
            return -1;
        }
        return (int) Math.max(1, Math.min(Math.ceil(ms), Integer.MAX_VALUE));
    }

    // ---------------------------------------------------------------- answers

    /** The response headers that open a gRPC answer. */
    static Http2Headers responseHeaders(boolean gzip) {
        Http2Headers h = new DefaultHttp2Headers().status("200");
        h.set("content-type", "application/grpc");
        if (gzip) {
            h.set("grpc-encoding", "gzip");
        }
        return h;
    }

    /** A message with its five-byte prefix; takes {@code message}. */
    static ByteBuf message(ByteBufAllocator alloc, ByteBuf message, boolean compressed) {
        ByteBuf prefix = alloc.buffer(5).writeByte(compressed ? 1 : 0).writeInt(message.readableBytes());
        return alloc.compositeBuffer(2).addComponents(true, prefix, message);
    }

    /**
     * The HEADERS that end a call with {@code code} (and, unless 0, a message and details): its
     * trailers once its response headers were sent, else a trailers-only answer, the status in the
     * one HEADERS frame of the stream.
     */
    static Http2Headers ending(boolean headersSent, int code, String message, byte[] details, String exception) {
        Http2Headers h = headersSent ? new DefaultHttp2Headers() : responseHeaders(false);
        fill(h, code, message, details, exception);
        return h;
    }

    private static void fill(Http2Headers h, int code, String message, byte[] details, String exception) {
        h.set("grpc-status", Integer.toString(code));
        if (message != null && !message.isEmpty()) {
            // At most 1,000 characters (3,000 bytes encoded): trailers must fit the peer's header list.
            h.set("grpc-message", percentEncode(message.length() > 1000 ? message.substring(0, 1000) : message));
        }
        if (details != null) {
            h.set(
                    "grpc-status-details-bin",
                    Base64.getEncoder().withoutPadding().encodeToString(details));
        }
        if (exception != null) {
            h.set("xrpc-exception", exception);
        }
    }

    /** gRPC's percent-encoding of {@code grpc-message}: UTF-8, bytes outside printable ASCII and '%' escaped. */
    static String percentEncode(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(b.length);
        for (byte x : b) {
            int c = x & 0xFF;
            if (c >= 0x20 && c <= 0x7E && c != '%') {
                out.append((char) c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }

    static boolean compressed(ByteBuf f) {
        return (f.getByte(f.readerIndex() + 7) & FLAG_COMPRESSED) != 0;
    }

    static int status(ByteBuf f) {
        return f.getByte(f.readerIndex() + 6);
    }

    /** The trailers of a failed answer or stream end {@code f}: its status, message and details. */
    static Http2Headers failure(ByteBuf f, ProtoContract contract, boolean headersSent) {
        RpcStatus s = RpcStatus.fromCode((byte) status(f));
        int code = code(s);
        ByteBuf body = HttpJson.body(f);
        ErrorCodec.RemoteError e;
        try {
            e = ErrorCodec.readError(body);
        } catch (RuntimeException malformed) {
            return ending(headersSent, INTERNAL, "the provider's error could not be read", null, null);
        }
        String message = e.message() == null ? s.name() : e.message();
        byte[] details = null;
        if (e.className() != null && contract != null) {
            byte[] carried = null;
            if (s == RpcStatus.APPLICATION_ERROR && body.isReadable()) {
                carried = ByteBufUtil.getBytes(body);
            }
            details = contract.statusDetails(code, message, e.className(), carried);
        }
        return ending(headersSent, code, message, details, e.className());
    }

    private static String header(Http2Headers headers, String name) {
        CharSequence v = headers.get(name);
        return v == null ? null : v.toString();
    }
}
