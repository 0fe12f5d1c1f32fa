package io.xrpc.transport;

/**
 * What a server transport hands a routed request to: the server's policy
 * ({@code io.xrpc.server.CallPolicy}), entered once per request. A transport knows only this and
 * {@link Routes}, so the server may depend on a transport and never the other way round.
 */
@FunctionalInterface
public interface RequestHandler {

    /**
     * Runs one routed request from a thread of the call executor (or the event loop, for a
     * {@link io.xrpc.common.NonBlocking} method) to its answer: the server's policy (deadline,
     * authentication, arguments, interceptors, implementation, statuses). The exchange answers
     * it; this never throws for anything the request did.
     */
    void handle(ServerExchange exchange);
}
