package io.xrpc.server;

import io.xrpc.common.Endpoint;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;

/**
 * Decides, before a request's arguments are read, whether its credentials (the
 * {@link io.xrpc.common.Invocation#CREDENTIALS} attachment) admit it. A refused call is
 * answered {@link io.xrpc.common.RpcStatus#UNAUTHENTICATED} with the reason, and nothing of it is
 * deserialized or run. Runs where the method runs, once per request: on a call thread, where it
 * may be slow (a token check against a key set) though it holds that thread meanwhile, or, for a
 * method marked {@link io.xrpc.common.NonBlocking}, on the event loop, where it must not block.
 */
@FunctionalInterface
public interface Authenticator {

    /**
     * {@code null} to admit the call; otherwise why it is refused, which the caller receives.
     *
     * @param credentials the request's credentials, or {@code null} when it carries none
     * @param peer        the address the request came from
     */
    String refuse(String credentials, ServiceKey service, MethodDescriptor method, Endpoint peer);
}
