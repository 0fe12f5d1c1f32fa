package io.xrpc.client;

import io.xrpc.cluster.CallCounters;
import io.xrpc.cluster.RetryBudget;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What the methods of one reference share for retrying: how many retries, the retry budget, the
 * counters, the hedging the options ask for, and the client's timer that sends hedges.
 */
record Retrying(int retries, RetryBudget budget, CallCounters counters, ReferenceOptions options,
                Supplier<ScheduledExecutorService> timer) {

    static Retrying of(ReferenceOptions options, Supplier<ScheduledExecutorService> timer) {
        RetryBudget budget = options.retryBudgetTokens() == 0 ? RetryBudget.UNLIMITED
                : new RetryBudget(options.retryBudgetTokens(), options.retryBudgetRatio());
        return new Retrying(options.retries(), budget, new CallCounters(), options, timer);
    }

    /** The hedging of a method, or {@code null}: only {@code @Idempotent} methods are ever hedged. */
    Hedging hedging(String methodName, boolean idempotent) {
        return idempotent ? options.hedging(methodName) : null;
    }
}
