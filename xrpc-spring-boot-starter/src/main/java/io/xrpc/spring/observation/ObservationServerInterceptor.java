package io.xrpc.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import io.xrpc.server.ServerInterceptor;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.Ordered;

/**
 * Observes every call a server runs with the Micrometer Observation API, from before the other
 * interceptors until the caller is answered, tagged with the status the caller receives. A tracing
 * handler continues the caller's trace from the W3C {@code traceparent}/{@code tracestate} and
 * {@code baggage} attachments, so the server's span is the client span's child. Its scope is open
 * while the interceptors and the implementation run, so their logs carry the trace id in the MDC.
 * Outermost of the server's interceptors.
 *
 * <p>Works outside Spring too: {@code RpcServer.builder().interceptor(new
 * ObservationServerInterceptor(registry, null))}.
 */
public final class ObservationServerInterceptor implements ServerInterceptor, Ordered {
    private static final XrpcServerObservationConvention DEFAULT = new DefaultXrpcServerObservationConvention();

    private final ObservationRegistry registry;
    private final XrpcServerObservationConvention convention;
    private final Guard guard = new Guard("server");

    /**
     * @param convention the application's convention, or {@code null} for the registry's global one
     *                   or else {@link DefaultXrpcServerObservationConvention}
     */
    public ObservationServerInterceptor(ObservationRegistry registry, XrpcServerObservationConvention convention) {
        this.registry = registry;
        this.convention = convention == null ? null : new SafeConventions.Server(convention, DEFAULT, guard);
    }

    @Override
    public CompletableFuture<Object> intercept(Invocation invocation, Chain next) {
        if (registry.isNoop()) {
            return next.proceed(invocation);
        }
        XrpcServerContext context = new XrpcServerContext(invocation);
        Observation observation = guard.start(convention, DEFAULT, context, registry);
        if (observation == null) {
            return next.proceed(invocation);
        }
        CompletableFuture<Object> f = guard.inScope(observation, registry, invocation, next::proceed);
        invocation.whenAnswered(status -> {
            context.setStatus(status);
            guard.end(observation, status == RpcStatus.OK ? null : failureOf(f, status, invocation));
        });
        return f;
    }

    /**
     * What the implementation threw, or for a status it did not cause (a result that cannot be
     * written, a deadline that passed, a closed connection) an exception naming that status.
     */
    private static Throwable failureOf(CompletableFuture<Object> f, RpcStatus status, Invocation invocation) {
        Throwable[] thrown = new Throwable[1];
        if (f.isCompletedExceptionally()) {
            // Runs at once on a completed future; unlike join() it does not wrap (and call
            // getMessage() on) what the implementation threw.
            f.whenComplete((v, t) -> thrown[0] = Futures.cause(t));
        }
        return thrown[0] != null
                ? thrown[0]
                : new RpcException(
                        status,
                        invocation.serviceKey() + "#" + invocation.method().signature() + " answered " + status);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
