package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.registry.ServiceInstance;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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

    /** The same call with a fresh deadline, for another attempt. */
    Invocation nextAttempt(Invocation invocation);

    /** How many times a failed call may be tried again. */
    int retries();

    /** Whether the method is marked {@link io.xrpc.common.Idempotent}. */
    boolean isIdempotent(Invocation invocation);
}
