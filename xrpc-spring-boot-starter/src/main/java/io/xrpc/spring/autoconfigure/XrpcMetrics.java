package io.xrpc.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.server.ServerInterceptor;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
    private volatile MeterRegistry registry;
    private volatile boolean resolved;
    /** Timers by name, service, method and status: bounded by the methods the application has. */
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    public XrpcMetrics(ObjectProvider<MeterRegistry> meters) {
        this.meters = meters;
    }

    ClientInterceptor client() {
        return (inv, next) -> timed("xrpc.client.calls", inv, next);
    }

    ServerInterceptor server() {
        return (inv, next) -> timed("xrpc.server.calls", inv, next::proceed);
    }

    private CompletableFuture<Object> timed(String name, Invocation inv, ClientInterceptor.Chain next) {
        MeterRegistry r = registry();
        if (r == null) {
            return next.proceed(inv);
        }
        long start = System.nanoTime(); // before proceeding: the call itself is what is timed
        CompletableFuture<Object> call;
        try {
            call = next.proceed(inv);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.whenComplete((v, t) -> timer(r, name, inv, status(t))
                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    private MeterRegistry registry() {
        if (!resolved) {
            registry = meters.getIfUnique();
            resolved = true;
        }
        return registry;
    }

    private Timer timer(MeterRegistry r, String name, Invocation inv, RpcStatus status) {
        String key = name + '|' + inv.serviceKey() + '|' + inv.method().signature() + '|' + status;
        return timers.computeIfAbsent(key, k -> Timer.builder(name)
                .description("XRpc calls")
                .tag("service", inv.serviceKey().toString())
                .tag("method", inv.method().signature())
                .tag("status", status.name())
                .register(r));
    }

    private static RpcStatus status(Throwable t) {
        if (t == null) {
            return RpcStatus.OK;
        }
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return c instanceof RpcException r ? r.status() : RpcStatus.APPLICATION_ERROR;
    }
}
