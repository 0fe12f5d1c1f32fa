package io.xrpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.server.ServerInterceptor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class InterceptorChainTest {
    private static final Invocation CALL = new Invocation(null, null, new Object[0], null, null, Long.MAX_VALUE);

    private static Function<Invocation, CompletableFuture<Object>> link(
            List<ServerInterceptor> interceptors, Function<Invocation, CompletableFuture<Object>> end) {
        return new InterceptorChain<ServerInterceptor, ServerInterceptor.Chain>(
                        interceptors, ServerInterceptor::intercept, next -> next::apply, "server")
                .link(end);
    }

    @Test
    void theFirstIsOutermostAndALinkedChainServesCallAfterCall() {
        List<String> order = new CopyOnWriteArrayList<>();
        ServerInterceptor a = (inv, next) -> {
            order.add("a");
            return next.proceed(inv).thenApply(v -> "a(" + v + ")");
        };
        ServerInterceptor b = (inv, next) -> {
            order.add("b");
            return next.proceed(inv).thenApply(v -> "b(" + v + ")");
        };
        Function<Invocation, CompletableFuture<Object>> chain = link(List.of(a, b), inv -> {
            order.add("end");
            return CompletableFuture.completedFuture("x");
        });
        assertThat(chain.apply(CALL).join()).isEqualTo("a(b(x))");
        assertThat(chain.apply(CALL).join()).isEqualTo("a(b(x))");
        assertThat(order).containsExactly("a", "b", "end", "a", "b", "end");
    }

    @Test
    void anInterceptorReturningNullFailsTheCallNamingIt() {
        ServerInterceptor lazy = (inv, next) -> null;
        CompletableFuture<Object> f = link(List.of(lazy), inv -> CompletableFuture.completedFuture("x"))
                .apply(CALL);
        assertThat(f).isCompletedExceptionally();
        assertThat(f.handle((v, t) -> t).join()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.INTERNAL);
            assertThat(e.getMessage())
                    .contains("server interceptor", lazy.getClass().getName(), "returned null");
        });
    }

    @Test
    void aThrowOnTheInsideReachesTheOuterInterceptorsAndNeverTheCaller() {
        IllegalStateException boom = new IllegalStateException("boom");
        ServerInterceptor rescuing = (inv, next) -> {
            try {
                return next.proceed(inv);
            } catch (IllegalStateException e) {
                return CompletableFuture.completedFuture("rescued " + e.getMessage());
            }
        };
        Function<Invocation, CompletableFuture<Object>> thrower = inv -> {
            throw boom;
        };
        assertThat(link(List.of(rescuing), thrower).apply(CALL).join()).isEqualTo("rescued boom");
        CompletableFuture<Object> bare = link(List.of(), thrower).apply(CALL);
        assertThat(bare.handle((v, t) -> t).join()).isSameAs(boom);
    }
}
