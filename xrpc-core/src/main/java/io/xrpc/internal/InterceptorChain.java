package io.xrpc.internal;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a call through interceptors, the first outermost, and then {@code end}; the one runner of
 * the client's and the server's chains. A throwing interceptor, or one returning {@code null},
 * fails the call's future instead of throwing.
 *
 * @param <I> the interceptor type
 */
public final class InterceptorChain<I> {

    /** Calls one interceptor with the rest of the chain as its {@code next}. */
    @FunctionalInterface
    public interface Step<I> {
        CompletableFuture<Object> intercept(I interceptor, Invocation invocation,
                                            Function<Invocation, CompletableFuture<Object>> next);
    }

    private final List<I> interceptors;
    private final Step<I> step;
    private final String side;

    /** @param side "client" or "server", for the error naming an interceptor that returned null */
    public InterceptorChain(List<I> interceptors, Step<I> step, String side) {
        this.interceptors = List.copyOf(interceptors);
        this.step = step;
        this.side = side;
    }

    public CompletableFuture<Object> run(Invocation invocation, Function<Invocation, CompletableFuture<Object>> end) {
        try {
            return proceed(0, invocation, end);
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    private CompletableFuture<Object> proceed(int index, Invocation invocation,
                                              Function<Invocation, CompletableFuture<Object>> end) {
        if (index == interceptors.size()) {
            return end.apply(invocation);
        }
        I interceptor = interceptors.get(index);
        CompletableFuture<Object> f = step.intercept(interceptor, invocation, next -> proceed(index + 1, next, end));
        if (f == null) {
            return CompletableFuture.failedFuture(new RpcException(RpcStatus.INTERNAL, side + " interceptor "
                    + interceptor.getClass().getName() + " returned null (expected: a future)"));
        }
        return f;
    }
}
