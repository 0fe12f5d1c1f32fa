package io.xrpc.client;

import io.xrpc.config.TransportConfig;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.netty.NettyClientTransport;
import java.time.Duration;
import java.util.List;

/**
 * A client's settings as {@link RpcClient.Builder#build()} checked and froze them, copied from the
 * builder so that building twice gives two independent clients. What the transport needs is
 * gathered in {@link #transport}. Immutable.
 */
final class ClientConfig {
    final String serializer;
    final String compressor;
    final Duration timeout;
    final ReadLimits readLimits;
    final TypeCheck.Mode typeCheck;
    final CallCredentials credentials;
    final boolean credentialsOverPlaintext;
    final List<ClientInterceptor> interceptors;
    final RegistryConfig registryAddress;
    final ServiceDiscovery discovery;
    final NettyClientTransport.Settings transport;

    ClientConfig(ClientSettings<?> b, ReadLimits readLimits, TypeCheck.Mode typeCheck, int ioThreads,
                 TransportConfig connection) {
        this.serializer = b.serializer;
        this.compressor = b.compressor;
        this.timeout = b.timeout;
        this.readLimits = readLimits;
        this.typeCheck = typeCheck;
        this.credentials = b.credentials;
        this.credentialsOverPlaintext = b.credentialsOverPlaintext;
        this.interceptors = List.copyOf(b.interceptors);
        this.registryAddress = b.registryAddress;
        this.discovery = b.discovery;
        this.transport = new NettyClientTransport.Settings(ioThreads, b.connectionsPerEndpoint, b.connectTimeout,
                b.maxPendingCalls, b.maxPendingRequestBytes, b.reconnectBackoff, b.maxReconnectBackoff,
                b.outlierFailures, b.outlierBaseEjection, b.outlierMaxEjection, connection, b.cancelOnProvider,
                b.pingTimeout);
    }
}
