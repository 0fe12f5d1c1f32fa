package io.xrpc.server;

import io.xrpc.common.Invocation;
import java.util.concurrent.CompletableFuture;

/**
 * Wraps every call a server runs, for metrics, auth or tracing without touching the core.
 * Interceptors run in the order they were added, the first outermost.
 *
 * <p>Threads: {@code intercept} runs where the method runs: on a business-executor thread, where it
 * may block (though every blocked thread is one fewer for calls), or, for a method marked
 * {@link io.xrpc.common.NonBlocking}, on the connection's event loop, where it must not. To reject a call, return a
 * failed future or throw: a thrown {@link io.xrpc.common.RpcException} reaches the caller with its
 * status; any other exception reaches it as {@link io.xrpc.common.RpcStatus#APPLICATION_ERROR}.
 * The returned future may complete on any thread.
 */
@FunctionalInterface
public interface ServerInterceptor {

    CompletableFuture<Object> intercept(Invocation invocation, Chain next);

    /** The rest of the chain, ending in the service implementation. */
    @FunctionalInterface
    interface Chain {
        CompletableFuture<Object> proceed(Invocation invocation);
    }
}
