package io.xrpc.spring.observe;

import java.util.concurrent.CompletableFuture;

/** Answers with what the provider's implementation sees of the trace it runs in. */
public interface Traced {
    /** {@code traceId|spanId|tenant baggage} as the provider's MDC and tracer see them. */
    String whereAmI();

    /** Answers later, from another thread, after the call's scope on the provider closed. */
    CompletableFuture<String> whereAmIAsync();

    /** Throws {@code IllegalStateException("refused: " + why)}. */
    String refuse(String why);
}
