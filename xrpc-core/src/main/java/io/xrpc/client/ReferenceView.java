package io.xrpc.client;

import io.xrpc.cluster.CallCounters;
import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One reference made by {@link RpcClient#proxy} as an operator sees it at one moment: how it calls
 * and the providers it sees now, each with its connection state. Made by
 * {@link RpcClient#references()} for endpoints and health checks; a snapshot, never updated.
 *
 * @param key              the service it calls
 * @param serviceInterface the interface's class name
 * @param source           "registry", or the fixed addresses it was given
 * @param loadBalancer     the load balancer's name
 * @param cluster          the cluster strategy's name
 * @param serializer       the serializer's name
 * @param compressor       the compressor's name
 * @param timeout          the default deadline of its calls (methods may have their own)
 * @param retries          how many other providers a failed call may be retried on, when retrying is safe
 * @param retryBudget      tokens left in its {@link io.xrpc.cluster.RetryBudget} (infinite when not throttled);
 *                         retries and hedges stop at half the bucket
 * @param counters         its calls, retries, throttled retries and hedges so far
 * @param providers        the providers it sees now, in the registry's (or the given) order
 */
public record ReferenceView(
        ServiceKey key,
        String serviceInterface,
        String source,
        String loadBalancer,
        String cluster,
        String serializer,
        String compressor,
        Duration timeout,
        int retries,
        double retryBudget,
        CallCounters.Snapshot counters,
        List<Provider> providers) {

    /** How a reference sees one provider. */
    public enum State {
        /** At least one connection is open and the provider is not set aside. */
        CONNECTED,
        /** A connect attempt is under way. */
        CONNECTING,
        /**
         * Set aside until {@link Provider#setAsideUntil()}: connecting failed, or calls went
         * unanswered (outlier detection). Calls go to other providers while there are any.
         */
        SET_ASIDE,
        /** Not connected: it connects on its next call. */
        IDLE
    }

    /**
     * @param endpoint        where it listens
     * @param state           its state as this client sees it
     * @param openConnections connections open to it
     * @param activeCalls     calls to it in flight, from every reference of this client
     * @param setAsideUntil   until when it is set aside (wall clock), {@code null} when it is not
     * @param serializers     the serializers it takes, empty for any
     */
    public record Provider(
            Endpoint endpoint,
            State state,
            int openConnections,
            int activeCalls,
            Instant setAsideUntil,
            List<String> serializers) {}
}
