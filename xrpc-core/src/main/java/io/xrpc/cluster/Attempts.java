package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.registry.ServiceInstance;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/** What a {@link Cluster} may do with the reference it serves. */
public interface Attempts {

    /**
     * A provider for the call chosen by the load balancer among the current providers, skipping
     * {@code excluded} and, while others remain, providers whose connections keep failing.
     *
     * @throws RpcException UNAVAILABLE naming the service when no provider is left
     */
    ServiceInstance select(Invocation invocation, Set<Endpoint> excluded);

    /** Sends one attempt to {@code target}. */
    CompletableFuture<Object> send(Invocation invocation, ServiceInstance target);

    /**
     * When an attempt that starts now must end: the call's deadline ({@code callDeadlineNanos},
     * which holds across all its attempts), or sooner when the reference bounds each attempt
     * ({@link io.xrpc.config.ReferenceOptions#attemptTimeout()}).
     */
    long attemptDeadline(long callDeadlineNanos);

    /** The same call under {@code deadlineNanos}, for another attempt. */
    Invocation nextAttempt(Invocation invocation, long deadlineNanos);

    /** How many times a failed call may be tried again. */
    int retries();

    /** Whether the method is marked {@link io.xrpc.common.Idempotent}. */
    boolean isIdempotent(Invocation invocation);

    /** The reference's retry budget, which every retry and hedge spends from. */
    RetryBudget budget();

    /** Where the reference's retries and hedges are counted. */
    CallCounters counters();

    /**
     * How long a call waits for an answer before it is hedged, in nanoseconds; -1 when it is not
     * hedged (the method is not {@code @Idempotent}, the reference does not hedge it, or a
     * percentile delay has too few samples yet).
     */
    long hedgeDelayNanos(Invocation invocation);

    /** The most attempts a hedged call makes in all. */
    int hedgeAttempts(Invocation invocation);

    /** The same call under the same deadline, for a hedged attempt. */
    Invocation hedgeAttempt(Invocation invocation);

    /** Runs {@code task} once after {@code delayNanos}, on a thread that must not block; cancel to drop it. */
    Future<?> schedule(Runnable task, long delayNanos);
}
