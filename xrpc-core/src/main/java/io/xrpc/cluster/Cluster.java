package io.xrpc.cluster;

import io.xrpc.common.Extension;
import io.xrpc.common.Invocation;
import java.util.concurrent.CompletableFuture;

/**
 * What a reference does when a call to one provider fails: try another ({@code failover}, the
 * default), give up at once ({@code failfast}), or log and return an empty value
 * ({@code failsafe}). Found with {@link java.util.ServiceLoader} under
 * {@code META-INF/services/io.xrpc.cluster.Cluster}; stateless and thread-safe.
 */
public interface Cluster extends Extension {

    /** Runs one call; the future fails with an {@link io.xrpc.common.RpcException}, never throws. */
    CompletableFuture<Object> invoke(Invocation invocation, Attempts attempts);
}
