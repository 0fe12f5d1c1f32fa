package io.xrpc.cluster;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@code failfast}: one attempt; its failure is the call's. For writes that must not repeat. */
public final class FailfastCluster implements Cluster {

    @Override
    public String name() {
        return "failfast";
    }

    @Override
    public CompletableFuture<Object> invoke(Invocation invocation, Attempts attempts) {
        try {
            return attempts.send(invocation, attempts.select(invocation, Set.of()));
        } catch (RpcException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
