package io.xrpc.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.server.ServerInterceptor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Micrometer timers {@code xrpc.client.calls} and {@code xrpc.server.calls}, tagged with service,
 * method and status, so one timer gives call counts, errors (status other than OK) and latency.
 * Does nothing when the application has no {@link MeterRegistry} bean.
 */
public class XrpcMetrics {
    private final ObjectProvider<MeterRegistry> meters;

    public XrpcMetrics(ObjectProvider<MeterRegistry> meters) {
        this.meters = meters;
    }

    ClientInterceptor client() {
        return (inv, next) -> timed("xrpc.client.calls", inv, next.proceed(inv));
    }

    ServerInterceptor server() {
        return (inv, next) -> timed("xrpc.server.calls", inv, next.proceed(inv));
    }

    private CompletableFuture<Object> timed(String name, Invocation inv, CompletableFuture<Object> call) {
        MeterRegistry registry = meters.getIfAvailable();
        if (registry == null) {
            return call;
        }
        long start = System.nanoTime();
        return call.whenComplete((v, t) -> Timer.builder(name)
                .description("XRpc calls")
                .tag("service", inv.serviceKey().toString())
                .tag("method", inv.method().signature())
                .tag("status", status(t).name())
                .register(registry)
                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    private static RpcStatus status(Throwable t) {
        if (t == null) {
            return RpcStatus.OK;
        }
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return c instanceof RpcException r ? r.status() : RpcStatus.APPLICATION_ERROR;
    }
}
