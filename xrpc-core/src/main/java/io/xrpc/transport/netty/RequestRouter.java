package io.xrpc.transport.netty;

import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.internal.Texts;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.ErrorCodec;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.Routes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a request goes through on the event loop before anything of it is deserialized: the
 * memory budget, shutdown, its deadline budget less the time it waited unread, its serializer, its
 * head (a compressed request's head is plain: only its arguments inflate), and its route in the
 * table of exports. A request that fails one is answered here, at once, and never becomes a
 * {@link ServerCall}; one that passes does, and owns its frame from then on. Stateless: one per
 * server, any event loop.
 */
final class RequestRouter {
    /** Longest piece of a peer's service key or signature quoted back in an error. */
    private static final int MAX_QUOTE = 200;

    private final NettyServerTransport server;

    RequestRouter(NettyServerTransport server) {
        this.server = server;
    }

    /**
     * The call of the request in {@code frame}, read at {@code received} (nanoTime) after it waited
     * {@code waitedMillis} unread; null when it was answered here.
     */
    ServerCall route(ServerChannelHandler connection, Frame frame, long received, int waitedMillis) {
        long id = frame.requestId();
        int requestBytes = frame.body().readableBytes();
        if (frame.isOverBudget()) {
            server.memoryBudgetFull();
            refuse(
                    connection,
                    frame,
                    RpcStatus.SERVER_BUSY,
                    connection.isAuthenticated()
                            ? "server " + server.endpoint() + " holds its memory budget for requests in transit ("
                                    + server.memoryBudget().limit() + " bytes) in other requests; request " + id
                                    + " was not read"
                            : "server " + server.endpoint()
                                    + " holds the share of its memory budget for connections that have"
                                    + " not authenticated ("
                                    + server.unauthenticatedBudget().limit() + " bytes) in other"
                                    + " requests; request " + id + " was not read (a connection that has carried an"
                                    + " authenticated call uses the whole budget)");
            return null;
        }
        if (server.isDraining()) {
            refuse(connection, frame, RpcStatus.UNAVAILABLE, "server " + server.endpoint() + " is shutting down");
            return null;
        }
        int budget = frame.budgetMillis();
        if (budget <= 0) {
            refuse(
                    connection,
                    frame,
                    RpcStatus.DEADLINE_EXCEEDED,
                    "deadline of request " + id + " passed before it reached " + server.endpoint());
            return null;
        }
        if (waitedMillis >= budget) {
            refuse(
                    connection,
                    frame,
                    RpcStatus.DEADLINE_EXCEEDED,
                    "request " + id + " waited " + waitedMillis
                            + " ms before " + server.endpoint() + " read it, longer than its budget of " + budget
                            + " ms; not run");
            return null;
        }
        long deadline = received + TimeUnit.MILLISECONDS.toNanos(budget - waitedMillis);
        byte serializerId = frame.serializerId();
        Serializer serializer = server.serializers().byId(serializerId);
        if (serializer == null) {
            Map<String, String> absent = server.serializers().missing();
            refuse(
                    connection,
                    frame,
                    RpcStatus.SERIALIZATION_ERROR,
                    "unknown serializer id " + serializerId
                            + (absent.isEmpty()
                                    ? ""
                                    : " (" + server.endpoint() + " has no library for " + absent.keySet() + ")"));
            connection.strikes.malformed("unknown serializer id " + serializerId);
            return null;
        }
        RpcCodec.RequestHead head;
        try {
            head = RpcCodec.readRequestHead(frame.body(), connection.names);
        } catch (RuntimeException e) {
            refuse(
                    connection,
                    frame,
                    RpcStatus.SERIALIZATION_ERROR,
                    "malformed request head in a body of "
                            + requestBytes + " bytes"
                            + (frame.isCompressed()
                                    ? " (a compressed request keeps its head plain:"
                                            + " is the client of an older XRpc, which compressed it?)"
                                    : ""));
            connection.strikes.malformed("malformed request head");
            return null;
        }
        Routes routes = server.routes();
        Routes.Route method = routes.find(head.serviceKey(), head.signature());
        if (method == null) {
            boolean known = routes.hasService(head.serviceKey());
            List<String> others = known ? List.of() : routes.exportedAs(head.serviceKey());
            refuse(
                    connection,
                    frame,
                    known ? RpcStatus.METHOD_NOT_FOUND : RpcStatus.SERVICE_NOT_FOUND,
                    known
                            ? "service " + Texts.cut(head.serviceKey(), MAX_QUOTE) + " has no method "
                                    + Texts.cut(head.signature(), MAX_QUOTE)
                            : "no service " + Texts.cut(head.serviceKey(), MAX_QUOTE) + " is exported at "
                                    + server.endpoint()
                                    + (others.isEmpty()
                                            ? ""
                                            : "; that interface is exported as " + String.join(", ", others)
                                                    + " (a caller names the version and group, as [group/]interface[:version] reads)"));
            return null;
        }
        RouteStats stats = (RouteStats) method.transportState(RouteStats::new);
        if (!method.accepts(serializer.name())) {
            refuse(
                    connection,
                    frame,
                    RpcStatus.SERIALIZATION_ERROR,
                    method.serviceKey() + " accepts only the" + " serializers " + method.acceptedSerializers()
                            + " (the request used " + serializer.name() + ")");
            return null;
        }
        if (!method.descriptor().isStream() && head.attachments().containsKey(ProtocolConstants.STREAM_ATTACHMENT)) {
            // A caller that takes a stream of a method of one answer: its interface, or a generic
            // caller's idea of it, differs from the provider's.
            refuse(
                    connection,
                    frame,
                    RpcStatus.METHOD_NOT_FOUND,
                    method.descriptor() + " answers once, and this caller asked for a stream of it; not run");
            return null;
        }
        if (method.descriptor().isStream()) {
            if (!head.attachments().containsKey(ProtocolConstants.STREAM_ATTACHMENT)) {
                refuse(
                        connection,
                        frame,
                        RpcStatus.SERIALIZATION_ERROR,
                        method.descriptor() + " streams, and this"
                                + " caller did not say it takes a stream (an XRpc client from before streams?): upgrade it");
                return null;
            }
            head.attachments().remove(ProtocolConstants.STREAM_ATTACHMENT); // the protocol's, not the call's
            if (connection.openStreams.incrementAndGet() > ServerChannelHandler.MAX_STREAMS) {
                connection.openStreams.decrementAndGet();
                refuse(
                        connection,
                        frame,
                        RpcStatus.RESOURCE_EXHAUSTED, // the caller's own limit, not the provider's overload
                        "server " + server.endpoint() + ": this connection has " + ServerChannelHandler.MAX_STREAMS
                                + " streams open, the most one connection may have; end one first; not run");
                return null;
            }
        }
        Compressor compressor = IdentityCompressor.INSTANCE;
        if (frame.compressorId() != IdentityCompressor.ID) {
            Compressor c = server.compressors().byId(frame.compressorId());
            compressor = c == null ? IdentityCompressor.INSTANCE : c;
        }
        return new ServerCall(
                server, connection, frame, requestBytes, deadline, serializer, compressor, head, method, stats);
    }

    /** Answers the request in {@code frame} with {@code status} without running it, and releases the frame. */
    void refuse(ServerChannelHandler connection, Frame frame, RpcStatus status, String message) {
        long id = frame.requestId();
        byte serializerId = frame.serializerId();
        byte compressorId = frame.compressorId();
        frame.release();
        connection.writes.enqueue(ErrorCodec.encodeError(
                connection.alloc(),
                id,
                serializerId,
                compressorId,
                status,
                null,
                message,
                null,
                server.maxFrameLength()));
    }
}
