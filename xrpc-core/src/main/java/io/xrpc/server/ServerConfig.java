package io.xrpc.server;

import io.xrpc.registry.ServiceRegistry;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.config.TransportConfig;
import java.time.Duration;
import java.util.List;

/**
 * A server's settings as {@link RpcServer.Builder#build()} checked and froze them; the
 * connection settings it shares with clients are in {@link #transport()}. Immutable.
 */
record ServerConfig(String host, int port, String advertisedHost, int ioThreads, int executorThreads,
                           int executorQueue, CallThreads callThreads, Duration shutdownGrace, Duration unregisterDelay, Duration frameTimeout,
                           int maxConnections, int maxConnectionsPerAddress, ReadLimits readLimits,
                           TypeCheck.Mode typeCheck, Authenticator authenticator, ErrorDetails errorDetails,
                           Duration authenticationTimeout, int maxAuthenticationFailures, long maxRequestMemory,
                           List<ServerInterceptor> interceptors, io.xrpc.registry.RegistryConfig registryAddress, ServiceRegistry registry,
                           TransportConfig transport) {
    public ServerConfig {
        interceptors = List.copyOf(interceptors);
    }
}
