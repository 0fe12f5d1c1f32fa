package io.xrpc.spring.observe;

import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.Tracer;
import io.xrpc.spring.RpcService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

@RpcService
public class TracedImpl implements Traced {
    private final Tracer tracer;

    public TracedImpl(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public String whereAmI() {
        String tenant;
        try (BaggageInScope b = tracer.getBaggage("tenant").makeCurrent()) {
            tenant = b.get();
        }
        LoggerFactory.getLogger(TracedImpl.class).info("whereAmI for tenant {}", tenant);
        return MDC.get("traceId") + "|" + MDC.get("spanId") + "|" + tenant;
    }

    @Override
    public CompletableFuture<String> whereAmIAsync() {
        String here = whereAmI();
        return CompletableFuture.supplyAsync(() -> here, CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
    }

    @Override
    public String refuse(String why) {
        throw new IllegalStateException("refused: " + why);
    }
}
