package io.xrpc.loadbalance;

import io.xrpc.common.Endpoint;
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
        int activeCalls(Endpoint endpoint);

        /**
         * A decaying estimate of the provider's latency from this client's calls, in nanoseconds:
         * slower answers count at once, faster ones pull it down over seconds, a call that failed
         * without an answer counts as its whole timeout, and it fades while the provider has no
         * call in flight. 0 before its first answer.
         */
        default long latencyNanos(Endpoint endpoint) {
            return 0;
        }

        /** Argument positions the consistent hash is keyed on; default {@code {0}}. */
        int[] hashArguments();
    }
}
