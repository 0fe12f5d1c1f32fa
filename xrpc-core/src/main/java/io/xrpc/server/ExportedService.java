package io.xrpc.server;

import io.xrpc.common.ServiceKey;
import java.util.List;

/**
 * One service a server exports, as an operator sees it at one moment; made by
 * {@link RpcServer#services()}, a snapshot never updated.
 *
 * @param key              the service key callers use
 * @param serviceInterface the exported interface's class name
 * @param methods          the signatures callers may call, sorted
 * @param nonBlocking      those of them that run on the connection's event loop
 *                         ({@link io.xrpc.common.NonBlocking}), sorted
 * @param serializers      the serializers it accepts, sorted; empty for every serializer the server has
 * @param inFlight         its calls running now: entered the interceptors, not yet answered
 */
public record ExportedService(
        ServiceKey key,
        String serviceInterface,
        List<String> methods,
        List<String> nonBlocking,
        List<String> serializers,
        long inFlight) {}
