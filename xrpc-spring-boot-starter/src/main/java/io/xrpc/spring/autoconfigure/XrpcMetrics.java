package io.xrpc.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
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
    /**
     * Timers per method, one slot per status, built on first use: a call looks up its method
     * (an identity key) and indexes an array, with no strings built per call. Bounded by the
     * methods the application has.
     */
    private final Map<MethodDescriptor, Timer[]> clientTimers = new ConcurrentHashMap<>();
    private final Map<MethodDescriptor, Timer[]> serverTimers = new ConcurrentHashMap<>();

    public XrpcMetrics(ObjectProvider<MeterRegistry> meters) {
        this.meters = meters;
    }

    ClientInterceptor client() {
        return (inv, next) -> timed("xrpc.client.calls", clientTimers, inv, next);
    }

    /**
     * Server calls are timed until answered and tagged with the status the caller receives, which
     * for a result that cannot be written is SERIALIZATION_ERROR though the implementation returned.
     */
    ServerInterceptor server() {
        return (inv, next) -> {
            MeterRegistry r = registry();
            if (r == null) {
                return next.proceed(inv);
            }
            long start = System.nanoTime();
            Timer[] byStatus = serverTimers.computeIfAbsent(inv.method(), m -> new Timer[RpcStatus.values().length]);
            inv.whenAnswered(status -> timer(r, "xrpc.server.calls", byStatus, inv, status)
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
            return next.proceed(inv);
        };
    }

    private CompletableFuture<Object> timed(String name, Map<MethodDescriptor, Timer[]> timers, Invocation inv,
                                            ClientInterceptor.Chain next) {
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
        Timer[] byStatus = timers.computeIfAbsent(inv.method(), m -> new Timer[RpcStatus.values().length]);
        return call.whenComplete((v, t) -> timer(r, name, byStatus, inv, status(t))
                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    private MeterRegistry registry() {
        if (!resolved) {
            registry = meters.getIfUnique();
            resolved = true;
        }
        return registry;
    }

    private static Timer timer(MeterRegistry r, String name, Timer[] byStatus, Invocation inv, RpcStatus status) {
        Timer t = byStatus[status.ordinal()];
        if (t == null) {
            // Micrometer returns the one registered timer for equal name and tags, so a race here
            // only builds the same timer twice.
            t = Timer.builder(name)
                    .description("XRpc calls")
                    .tag("service", inv.serviceKey().toString())
                    .tag("method", inv.method().signature())
                    .tag("status", status.name())
                    .register(r);
            byStatus[status.ordinal()] = t;
        }
        return t;
    }

    private static RpcStatus status(Throwable t) {
        if (t == null) {
            return RpcStatus.OK;
        }
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return c instanceof RpcException r ? r.status() : RpcStatus.APPLICATION_ERROR;
    }
}
