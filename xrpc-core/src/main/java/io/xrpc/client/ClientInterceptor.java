package io.xrpc.client;

import io.xrpc.common.Invocation;
import java.util.concurrent.CompletableFuture;

/**
 * Wraps every call a client makes, for metrics, auth or tracing without touching the core.
 * Interceptors run in the order they were added, the first outermost; the last one's
 * {@code next} sends the call.
 *
 * <p>Threads: {@code intercept} runs on the thread that called the proxy. The future it returns
 * may complete on an event-loop thread, so callbacks attached to it must not block. Throwing, or
 * returning a failed future, fails the call; throw {@link io.xrpc.common.RpcException} to choose
 * its status. An interceptor may add {@linkplain Invocation#attachments() attachments}, which travel
 * to the server's interceptors.
 */
@FunctionalInterface
public interface ClientInterceptor {

    CompletableFuture<Object> intercept(Invocation invocation, Chain next);

    /** The rest of the chain, ending in the transport. */
    @FunctionalInterface
    interface Chain {
        CompletableFuture<Object> proceed(Invocation invocation);
    }
}
