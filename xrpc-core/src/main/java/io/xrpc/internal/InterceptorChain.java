package io.xrpc.internal;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a call through interceptors, the first outermost, and then an end; the one runner of the
 * client's and the server's chains. {@link #link} joins the interceptors to an end once (per
 * proxy, per exported method), so a call through the chain allocates nothing of its own. A
 * throwing interceptor, or one returning {@code null}, fails the call's future instead of
 * throwing.
 *
 * @param <I> the interceptor type
 * @param <C> the interceptor's type for the rest of the chain
 */
public final class InterceptorChain<I, C> {

    /** Calls one interceptor with the rest of the chain as its {@code next}. */
    @FunctionalInterface
    public interface Step<I, C> {
        CompletableFuture<Object> intercept(I interceptor, Invocation invocation, C next);
    }

    private final List<I> interceptors;
    private final Step<I, C> step;
    private final Function<Function<Invocation, CompletableFuture<Object>>, C> chainOf;
    private final String side;

    /**
     * @param chainOf makes the interceptor's view of the rest of the chain from a function
     * @param side    "client" or "server", for the error naming an interceptor that returned null
     */
    public InterceptorChain(
            List<I> interceptors,
            Step<I, C> step,
            Function<Function<Invocation, CompletableFuture<Object>>, C> chainOf,
            String side) {
        this.interceptors = List.copyOf(interceptors);
        this.step = step;
        this.chainOf = chainOf;
        this.side = side;
    }

    /** The interceptors joined to {@code end}: a function that never throws. */
    public Function<Invocation, CompletableFuture<Object>> link(Function<Invocation, CompletableFuture<Object>> end) {
        Function<Invocation, CompletableFuture<Object>> next = end;
        for (int i = interceptors.size() - 1; i >= 0; i--) {
            I interceptor = interceptors.get(i);
            C rest = chainOf.apply(next);
            next = invocation -> {
                CompletableFuture<Object> f = step.intercept(interceptor, invocation, rest);
                if (f == null) {
                    return CompletableFuture.failedFuture(new RpcException(
                            RpcStatus.INTERNAL,
                            side + " interceptor " + interceptor.getClass().getName()
                                    + " returned null (expected: a future)"));
                }
                return f;
            };
        }
        Function<Invocation, CompletableFuture<Object>> first = next;
        return invocation -> {
            try {
                return first.apply(invocation);
            } catch (Throwable t) {
                return CompletableFuture.failedFuture(t);
            }
        };
    }
}
