package io.xrpc.server;

import io.xrpc.config.TransportConfig;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceRegistry;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.netty.NettyServerTransport;
import java.time.Duration;
import java.util.List;

/**
 * A server's settings as {@link RpcServer.Builder#build()} checked and froze them, copied from the
 * builder so that building twice gives two independent servers. What the transport needs is
 * gathered in {@link #transport}. Immutable.
 */
final class ServerConfig {
    final String host;
    final int port;
    final String advertisedHost;
    final Duration shutdownGrace;
    final Duration unregisterDelay;
    final ReadLimits readLimits;
    final TypeCheck.Mode typeCheck;
    final Authenticator authenticator;
    final ErrorDetails errorDetails;
    final boolean reflection;
    final List<ServerInterceptor> interceptors;
    final RegistryConfig registryAddress;
    final ServiceRegistry registry;
    final NettyServerTransport.Settings transport;

    ServerConfig(ServerSettings<?> b, ReadLimits readLimits, TypeCheck.Mode typeCheck, int ioThreads,
                 TransportConfig connection) {
        long requestMemory = b.maxRequestMemory;
        if (requestMemory == 0) {
            requestMemory = Math.max(MemoryBudget.defaultLimit(), connection.maxFrameLength());
        } else if (requestMemory < connection.maxFrameLength()) {
            throw new IllegalArgumentException("maxRequestMemory: " + requestMemory + " bytes (expected: at least"
                    + " maxFrameLength, " + connection.maxFrameLength() + ", or no request that large could be read)");
        }
        this.host = b.host;
        this.port = b.port;
        this.advertisedHost = b.advertisedHost;
        this.shutdownGrace = b.shutdownGrace;
        this.unregisterDelay = b.unregisterDelay;
        this.readLimits = readLimits;
        this.typeCheck = typeCheck;
        this.authenticator = b.authenticator;
        this.errorDetails = b.errorDetails;
        this.reflection = b.reflection;
        this.interceptors = List.copyOf(b.interceptors);
        this.registryAddress = b.registryAddress;
        this.registry = b.registry;
        this.transport = new NettyServerTransport.Settings(b.host, b.port, ioThreads, b.executorThreads,
                b.executorQueue, b.callThreads.factory("xrpc-server-call"), b.frameTimeout, b.maxConnections,
                b.maxConnectionsPerAddress, b.authenticator != null, b.authenticationTimeout,
                b.maxAuthenticationFailures, requestMemory, connection, b.adaptiveConcurrency);
    }
}
