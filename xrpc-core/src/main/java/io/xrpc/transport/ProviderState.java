package io.xrpc.transport;

/**
 * What a client transport knows of one provider at one moment, for operators (an Actuator
 * endpoint, say); reading it costs a few volatile reads and never blocks a call.
 *
 * @param openConnections connections open to the provider now
 * @param connecting      whether a connect attempt is under way
 * @param setAsideNanos   how much longer the provider is set aside (failed connects, or calls
 *                        left unanswered: outlier detection), 0 when it is not
 * @param activeCalls     calls sent to it and not yet ended
 */
public record ProviderState(int openConnections, boolean connecting, long setAsideNanos, int activeCalls) {

    /** A provider this transport has never been asked to call. */
    public static final ProviderState UNUSED = new ProviderState(0, false, 0, 0);
}
