package io.xrpc.server;

import io.xrpc.config.TransportConfig;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceRegistry;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.transport.ServerTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * A server's settings as {@link RpcServer.Builder#build()} checked and froze them: the one
 * immutable value every part of the server reads what it needs from, the transport included
 * (through {@link ServerTransport.Settings}), so a setting is copied once, from the builder.
 * Building twice gives two independent servers.
 */
final class ServerConfig implements ServerTransport.Settings {
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
    private final int ioThreads;
    private final int executorThreads;
    private final int executorQueue;
    private final ThreadFactory callThreads;
    private final Executor executor;
    private final Duration frameTimeout;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;
    private final Duration authenticationTimeout;
    private final int maxAuthenticationFailures;
    private final long maxRequestMemory;
    private final TransportConfig transport;
    private final boolean adaptiveConcurrency;
    private final boolean http;
    private final boolean httpConsole;
    private final List<String> httpAllowedOrigins;

    ServerConfig(
            ServerSettings<?> b,
            ReadLimits readLimits,
            TypeCheck.Mode typeCheck,
            int ioThreads,
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
        this.ioThreads = ioThreads;
        this.executorThreads = b.executorThreads;
        this.executorQueue = b.executorQueue;
        this.callThreads = b.callThreads.factory("xrpc-server-call");
        this.executor = b.executor;
        this.frameTimeout = b.frameTimeout;
        this.maxConnections = b.maxConnections;
        this.maxConnectionsPerAddress = b.maxConnectionsPerAddress;
        this.authenticationTimeout = b.authenticationTimeout;
        this.maxAuthenticationFailures = b.maxAuthenticationFailures;
        this.maxRequestMemory = requestMemory;
        this.transport = connection;
        this.adaptiveConcurrency = b.adaptiveConcurrency;
        this.http = b.http;
        this.httpConsole = b.httpConsole;
        this.httpAllowedOrigins = b.httpAllowedOrigins;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public int ioThreads() {
        return ioThreads;
    }

    @Override
    public int executorThreads() {
        return executorThreads;
    }

    @Override
    public int executorQueue() {
        return executorQueue;
    }

    @Override
    public ThreadFactory callThreads() {
        return callThreads;
    }

    @Override
    public Executor executor() {
        return executor;
    }

    @Override
    public Duration frameTimeout() {
        return frameTimeout;
    }

    @Override
    public int maxConnections() {
        return maxConnections;
    }

    @Override
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    @Override
    public boolean authenticates() {
        return authenticator != null;
    }

    @Override
    public Duration authenticationTimeout() {
        return authenticationTimeout;
    }

    @Override
    public int maxAuthenticationFailures() {
        return maxAuthenticationFailures;
    }

    @Override
    public long maxRequestMemory() {
        return maxRequestMemory;
    }

    @Override
    public TransportConfig transport() {
        return transport;
    }

    @Override
    public boolean adaptiveConcurrency() {
        return adaptiveConcurrency;
    }

    @Override
    public boolean http() {
        return http;
    }

    @Override
    public boolean httpConsole() {
        return httpConsole;
    }

    @Override
    public List<String> httpAllowedOrigins() {
        return httpAllowedOrigins;
    }
}
