package io.xrpc.client;

import io.xrpc.cluster.CallCounters;
import io.xrpc.cluster.RetryBudget;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What the methods of one reference share for retrying: how many retries, the retry budget, the
 * counters, the hedging the options ask for, the client's timer that sends hedges, and the bound
 * of one attempt ({@code attemptTimeoutNanos}, 0 for none).
 */
record Retrying(int retries, RetryBudget budget, CallCounters counters, ReferenceOptions options,
                Supplier<ScheduledExecutorService> timer, long attemptTimeoutNanos) {

    static Retrying of(ReferenceOptions options, Supplier<ScheduledExecutorService> timer) {
        RetryBudget budget = options.retryBudgetTokens() == 0 ? RetryBudget.UNLIMITED
                : new RetryBudget(options.retryBudgetTokens(), options.retryBudgetRatio());
        return new Retrying(options.retries(), budget, new CallCounters(), options, timer,
                options.attemptTimeout() == null ? 0 : options.attemptTimeout().toNanos());
    }

    /** The hedging of a method, or {@code null}: only {@code @Idempotent} methods are ever hedged. */
    Hedging hedging(String methodName, boolean idempotent) {
        return idempotent ? options.hedging(methodName) : null;
    }
}
