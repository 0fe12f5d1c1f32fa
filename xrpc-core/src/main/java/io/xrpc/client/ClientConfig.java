package io.xrpc.client;

import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.config.TransportConfig;
import java.time.Duration;
import java.util.List;

/**
 * A client's settings as {@link RpcClient.Builder#build()} checked and froze them; the
 * connection settings it shares with servers are in {@link #transport()}. Immutable.
 */
record ClientConfig(String serializer, String compressor, Duration timeout, int ioThreads,
                           int connectionsPerEndpoint, Duration connectTimeout, int maxPendingCalls,
                           long maxPendingRequestBytes, Duration reconnectBackoff, Duration maxReconnectBackoff,
                           int outlierFailures, Duration outlierBaseEjection, Duration outlierMaxEjection,
                           ReadLimits readLimits, TypeCheck.Mode typeCheck, CallCredentials credentials,
                           boolean credentialsOverPlaintext,
                           List<ClientInterceptor> interceptors, io.xrpc.registry.RegistryConfig registryAddress, ServiceDiscovery discovery,
                           TransportConfig transport) {
    public ClientConfig {
        interceptors = List.copyOf(interceptors);
    }
}
