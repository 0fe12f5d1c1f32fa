package io.xrpc.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.Ordered;

/**
 * Observes every client call with the Micrometer Observation API: one observation from the call
 * until its future completes, covering failover retries. Started on the calling thread, so its
 * parent is the caller's current observation or span, for a {@code CompletableFuture} method too
 * (its answer arrives on an event loop; the context was taken before). Its scope is open while
 * the call is sent, so a tracing handler writes the W3C {@code traceparent}/{@code tracestate}
 * and {@code baggage} into the request's attachments, and interceptors after this one log with
 * the trace id in the MDC. Outermost of the client's interceptors.
 *
 * <p>Works outside Spring too: {@code RpcClient.builder().interceptor(new
 * ObservationClientInterceptor(registry, null))}.
 */
public final class ObservationClientInterceptor implements ClientInterceptor, Ordered {
    private static final XrpcClientObservationConvention DEFAULT = new DefaultXrpcClientObservationConvention();

    private final ObservationRegistry registry;
    private final XrpcClientObservationConvention convention;
    private final Guard guard = new Guard("client");

    /**
     * @param convention the application's convention, or {@code null} for the registry's global one
     *                   or else {@link DefaultXrpcClientObservationConvention}
     */
    public ObservationClientInterceptor(ObservationRegistry registry, XrpcClientObservationConvention convention) {
        this.registry = registry;
        this.convention = convention == null ? null : new SafeConventions.Client(convention, DEFAULT, guard);
    }

    @Override
    public CompletableFuture<Object> intercept(Invocation invocation, Chain next) {
        if (registry.isNoop()) {
            return next.proceed(invocation);
        }
        XrpcClientContext context = new XrpcClientContext(invocation);
        Observation observation = guard.start(convention, DEFAULT, context, registry);
        if (observation == null) {
            return next.proceed(invocation);
        }
        CompletableFuture<Object> call = guard.inScope(observation, registry, invocation, next::proceed);
        // The caller's future completes after the observation stopped: what the caller does next
        // (another call, a test reading spans) sees this call's span ended.
        return call.whenComplete((value, failure) -> {
            Throwable cause = failure == null ? null : Futures.cause(failure);
            context.setStatus(
                    cause == null
                            ? RpcStatus.OK
                            : cause instanceof RpcException r ? r.status() : RpcStatus.APPLICATION_ERROR);
            guard.end(observation, cause); // never throws: the caller keeps the call's own result
        });
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
