package io.xrpc.client;

import io.xrpc.config.TransportConfig;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.ClientTransport;
import java.time.Duration;
import java.util.List;

/**
 * A client's settings as {@link RpcClient.Builder#build()} checked and froze them: the one
 * immutable value every part of the client reads what it needs from, the transport included
 * (through {@link ClientTransport.Settings}), so a setting is copied once, from the builder.
 * Building twice gives two independent clients.
 */
final class ClientConfig implements ClientTransport.Settings {
    final String serializer;
    final String compressor;
    final Duration timeout;
    final ReadLimits readLimits;
    final TypeCheck.Mode typeCheck;
    /** Null when calls carry no credentials. */
    final CallCredentials credentials;

    final List<ClientInterceptor> interceptors;
    final RegistryConfig registryAddress;
    final ServiceDiscovery discovery;
    /** Why no call may carry the credentials (no TLS), or null. */
    final String credentialsRefusal;

    private final int ioThreads;
    private final int connectionsPerEndpoint;
    private final Duration connectTimeout;
    private final int maxPendingCalls;
    private final long maxPendingRequestBytes;
    private final Duration reconnectBackoff;
    private final Duration maxReconnectBackoff;
    private final int outlierFailures;
    private final Duration outlierBaseEjection;
    private final Duration outlierMaxEjection;
    private final TransportConfig transport;
    private final boolean cancelOnProvider;
    private final Duration pingTimeout;

    ClientConfig(
            ClientSettings<?> b,
            ReadLimits readLimits,
            TypeCheck.Mode typeCheck,
            int ioThreads,
            TransportConfig transport) {
        this.serializer = b.serializer;
        this.compressor = b.compressor;
        this.timeout = b.timeout;
        this.readLimits = readLimits;
        this.typeCheck = typeCheck;
        this.credentials = b.credentials;
        this.interceptors = List.copyOf(b.interceptors);
        this.registryAddress = b.registryAddress;
        this.discovery = b.discovery;
        this.ioThreads = ioThreads;
        this.connectionsPerEndpoint = b.connectionsPerEndpoint;
        this.connectTimeout = b.connectTimeout;
        this.maxPendingCalls = b.maxPendingCalls;
        this.maxPendingRequestBytes = b.maxPendingRequestBytes;
        this.reconnectBackoff = b.reconnectBackoff;
        this.maxReconnectBackoff = b.maxReconnectBackoff;
        this.outlierFailures = b.outlierFailures;
        this.outlierBaseEjection = b.outlierBaseEjection;
        this.outlierMaxEjection = b.outlierMaxEjection;
        this.transport = transport;
        this.cancelOnProvider = b.cancelOnProvider;
        this.pingTimeout = b.pingTimeout;
        // As gRPC's CallCredentials require privacy, a token is never written in plaintext, where
        // anyone between the client and the provider (or a provider that is not the one meant) reads it.
        this.credentialsRefusal = credentials == null || transport.tls() != null || b.credentialsOverPlaintext
                ? null
                : "call credentials are sent only over TLS and this client has no TLS: give it tls(...), or"
                        + " credentialsOverPlaintext(true) for development on loopback";
    }

    @Override
    public int ioThreads() {
        return ioThreads;
    }

    @Override
    public int connectionsPerEndpoint() {
        return connectionsPerEndpoint;
    }

    @Override
    public Duration connectTimeout() {
        return connectTimeout;
    }

    @Override
    public int maxPendingCalls() {
        return maxPendingCalls;
    }

    @Override
    public long maxPendingRequestBytes() {
        return maxPendingRequestBytes;
    }

    @Override
    public Duration reconnectBackoff() {
        return reconnectBackoff;
    }

    @Override
    public Duration maxReconnectBackoff() {
        return maxReconnectBackoff;
    }

    @Override
    public int outlierFailures() {
        return outlierFailures;
    }

    @Override
    public Duration outlierBaseEjection() {
        return outlierBaseEjection;
    }

    @Override
    public Duration outlierMaxEjection() {
        return outlierMaxEjection;
    }

    @Override
    public TransportConfig transport() {
        return transport;
    }

    @Override
    public boolean cancelOnProvider() {
        return cancelOnProvider;
    }

    @Override
    public Duration pingTimeout() {
        return pingTimeout;
    }
}
