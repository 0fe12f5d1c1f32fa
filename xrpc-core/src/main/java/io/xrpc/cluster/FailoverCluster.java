package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import io.xrpc.registry.ServiceInstance;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@code failover}: when an attempt fails in a way that proves the request did not run (connection
 * refused or closed before sending, server busy or shutting down), try another provider, up to
 * {@link Attempts#retries()} more times. A timeout or a connection lost mid-call is retried only
 * for {@link io.xrpc.common.Idempotent} methods. Each retry goes to a provider not yet tried; when
 * none is left the last error stands, so a failing provider is never hammered in a loop.
 */
public final class FailoverCluster implements Cluster {

    @Override
    public String name() {
        return "failover";
    }

    @Override
    public CompletableFuture<Object> invoke(Invocation invocation, Attempts attempts) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        // No set of tried providers until a retry needs one: the common call succeeds first time.
        attempt(invocation, attempts, Set.of(), 0, null, result);
        return result;
    }

    /** Never throws and always completes {@code result} in the end, whatever a balancer or send throws. */
    private void attempt(Invocation inv, Attempts attempts, Set<Endpoint> tried, int n, RpcException last,
                         CompletableFuture<Object> result) {
        try {
            ServiceInstance target;
            try {
                target = attempts.select(inv, tried);
            } catch (RpcException e) {
                result.completeExceptionally(last != null ? last : e);
                return;
            }
            attempts.send(inv, target).whenComplete((v, t) -> {
                try {
                    if (t == null) {
                        result.complete(v);
                        return;
                    }
                    RpcException e = asRpc(t);
                    if (n < attempts.retries() && retryable(e, inv, attempts)) {
                        Set<Endpoint> next = tried.isEmpty() ? new HashSet<>(4) : tried;
                        next.add(target.endpoint());
                        attempt(attempts.nextAttempt(inv), attempts, next, n + 1, e, result);
                    } else {
                        result.completeExceptionally(e);
                    }
                } catch (Throwable unexpected) {
                    result.completeExceptionally(asRpc(unexpected));
                }
            });
        } catch (Throwable unexpected) {
            result.completeExceptionally(asRpc(unexpected));
        }
    }

    private static boolean retryable(RpcException e, Invocation inv, Attempts attempts) {
        if (e.isSafeToRetry()) {
            return true;
        }
        return (e.status() == RpcStatus.DEADLINE_EXCEEDED || e.status() == RpcStatus.CONNECTION_CLOSED)
                && attempts.isIdempotent(inv);
    }

    static RpcException asRpc(Throwable t) {
        Throwable c = Futures.cause(t);
        return c instanceof RpcException r ? r : new RpcException(RpcStatus.INTERNAL, c.toString(), c);
    }
}
