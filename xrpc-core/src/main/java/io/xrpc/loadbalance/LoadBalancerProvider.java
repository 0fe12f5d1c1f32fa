package io.xrpc.loadbalance;

import io.xrpc.common.Extension;

/**
 * Creates {@link LoadBalancer}s of one strategy, chosen by {@link #name()}; found with
 * {@link java.util.ServiceLoader} under {@code META-INF/services/io.xrpc.loadbalance.LoadBalancerProvider}.
 * Built-ins: {@code random} (weighted), {@code round-robin} (smooth weighted),
 * {@code least-active}, {@code consistent-hash}.
 */
public interface LoadBalancerProvider extends Extension {

    /** A balancer for one reference. */
    LoadBalancer create(Context context);

    /** What a balancer may know of its reference and client. */
    interface Context {
        /** Calls to {@code instance}'s address now in flight from this client. */
        int activeCalls(io.xrpc.common.Endpoint endpoint);

        /** Argument positions the consistent hash is keyed on; default {@code {0}}. */
        int[] hashArguments();
    }
}
