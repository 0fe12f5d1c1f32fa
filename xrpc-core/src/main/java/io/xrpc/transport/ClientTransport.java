package io.xrpc.transport;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.compress.Compressor;
import io.xrpc.config.TransportConfig;
import io.xrpc.serialize.Serializer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The network side of a client: connections to providers, requests out and answers back.
 * {@code io.xrpc.transport.netty} has the one implementation.
 */
public interface ClientTransport extends AutoCloseable {

    /**
     * What a client transport is set up with, read from the client's one frozen configuration
     * (built by {@code RpcClient.Builder}, whose setters document each): no copy of it is made.
     */
    interface Settings {
        /** Event-loop threads. */
        int ioThreads();

        /** Multiplexed connections per provider address. */
        int connectionsPerEndpoint();

        Duration connectTimeout();

        /** Calls that may be pending at once, over every provider. */
        int maxPendingCalls();

        /** Bytes of encoded requests that may wait to be written to one provider. */
        long maxPendingRequestBytes();

        /** First wait after a failed connect, doubled per failure up to {@link #maxReconnectBackoff()}. */
        Duration reconnectBackoff();

        Duration maxReconnectBackoff();

        /** Failures in a row that set a provider aside; 0 turns outlier detection off. */
        int outlierFailures();

        Duration outlierBaseEjection();

        Duration outlierMaxEjection();

        /** The connection settings both sides share: frame limit, heartbeat, compression threshold, water marks, TLS. */
        TransportConfig transport();

        /** Whether a cancelled call that was sent is cancelled on its provider too (a CANCEL frame). */
        boolean cancelOnProvider();

        /** How long a silent provider has to answer a ping; zero turns the silence watch off. */
        Duration pingTimeout();
    }

    /**
     * Sends one call to {@code endpoint}; the future completes with the result or fails with an
     * {@code RpcException}, at the latest when the invocation's deadline passes.
     */
    CompletableFuture<Object> send(
            Invocation invocation,
            CallTarget target,
            Endpoint endpoint,
            Serializer serializer,
            Compressor compressor,
            long timeoutMillis);

    /** Whether {@code endpoint} is set aside (failed connects or unanswered calls) for now. */
    boolean isSetAside(Endpoint endpoint);

    /** What this transport knows of {@code endpoint} now; {@link ProviderState#UNUSED} if never called. */
    ProviderState providerState(Endpoint endpoint);

    /** Calls in flight to {@code endpoint}. */
    int activeCalls(Endpoint endpoint);

    /**
     * A decaying estimate of {@code endpoint}'s latency from this client's calls, in nanoseconds;
     * 0 before its first answer (and by default, for a transport that does not keep one).
     */
    default long latencyNanos(Endpoint endpoint) {
        return 0;
    }

    /** Calls waiting for an answer, over every provider. */
    int pendingCalls();

    /** Bytes of requests waiting to be written, over every provider. */
    long queuedRequestBytes();

    /** Open connections. */
    int openConnections();

    /**
     * Closes the connections to providers outside {@code endpoints}; returns whether some were
     * kept because calls were still in flight on them (to be looked at again later).
     */
    boolean retainOnly(Set<Endpoint> endpoints);

    /** True on one of this transport's I/O threads, where waiting for an answer would deadlock. */
    boolean isTransportThread();

    @Override
    void close();
}
