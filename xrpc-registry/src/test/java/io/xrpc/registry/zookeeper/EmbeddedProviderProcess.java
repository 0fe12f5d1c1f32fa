package io.xrpc.registry.zookeeper;

import io.xrpc.server.RpcServer;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;

/**
 * A provider with {@code registry("embedded")} in a JVM of its own, as a user's provider process
 * on a laptop: {@code EmbeddedProviderProcess <embedded port>}. Prints {@code READY <port>} once
 * registered, then serves until killed or until the JVM that started it is gone.
 */
public final class EmbeddedProviderProcess {
    public static void main(String[] args) throws Exception {
        System.setProperty(EmbeddedZooKeeper.PORT_PROPERTY, args[0]);
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .registry("embedded")
                .service(GateService.class, new GateServiceImpl("other-jvm"))
                .build()
                .start();
        System.out.println("READY " + server.port());
        System.out.flush();
        ForkedJvm.serveUntilParentExits();
    }
}
