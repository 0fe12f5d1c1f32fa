package io.xrpc.spring.observation;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;

/** What the client's and the server's observation contexts both know of a call. */
public interface XrpcCallContext {

    /** The call. */
    Invocation getInvocation();

    /** How it ended as its caller sees it: {@code null} while it runs. */
    RpcStatus getStatus();
}
