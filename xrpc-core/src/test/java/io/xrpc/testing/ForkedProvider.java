package io.xrpc.testing;

import io.xrpc.server.RpcServer;

/**
 * A provider of {@link GateService} in a JVM of its own, named by its first argument: prints
 * {@code READY <port>} and serves until killed.
 */
public final class ForkedProvider {
    private ForkedProvider() {
    }

    public static void main(String[] args) throws Exception {
        RpcServer server = RpcServer.builder().host("127.0.0.1")
                .service(GateService.class, new GateServiceImpl(args.length > 0 ? args[0] : "forked")).build().start();
        System.out.println("READY " + server.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
