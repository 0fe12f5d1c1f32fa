package io.xrpc.benchmark.peers;

import io.xrpc.benchmark.stress.Contender;
import io.xrpc.benchmark.stress.ProviderMain;
import io.xrpc.benchmark.stress.StressTool;
import io.xrpc.server.RpcServer;
import java.util.List;

/**
 * XRpc's provider in its default configuration, called through its gRPC side by grpc-java's own
 * client of the derived contract: the same callers {@link GrpcDerivedContender} points at
 * grpc-java's server.
 */
public final class XrpcGrpcContender implements Contender {
    @Override
    public AutoCloseable startServer(int[] port) {
        RpcServer server = ProviderMain.xrpcProvider("pool").build().start();
        port[0] = server.port();
        return server;
    }

    @Override
    public StressTool.Call caller(String scenario, int port, List<AutoCloseable> resources) {
        return GrpcDerivedContender.client(scenario, port, resources);
    }
}
