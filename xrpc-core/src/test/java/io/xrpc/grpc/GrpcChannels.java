package io.xrpc.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.xrpc.server.RpcServer;

/** grpc-java's own channels to a test's server. */
final class GrpcChannels {
    private GrpcChannels() {}

    /** A plaintext channel to {@code server}'s port on 127.0.0.1. */
    static ManagedChannel to(RpcServer server) {
        return builder(server).build();
    }

    static NettyChannelBuilder builder(RpcServer server) {
        return NettyChannelBuilder.forAddress("127.0.0.1", server.endpoint().port())
                .usePlaintext();
    }
}
