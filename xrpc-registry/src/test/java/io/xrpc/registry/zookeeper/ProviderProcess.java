package io.xrpc.registry.zookeeper;

import io.xrpc.server.RpcServer;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;

/**
 * A provider in a JVM of its own, so a test can kill it without warning:
 * {@code ProviderProcess <zookeeper connect string> <session timeout ms> [name]}. Prints {@code READY <port>}
 * once registered, then serves until killed or until the JVM that started it is gone.
 */
public final class ProviderProcess {
    public static void main(String[] args) throws Exception {
        ZookeeperRegistry registry = new ZookeeperRegistry(
                ZookeeperSettings.defaults().withSessionTimeout(Duration.ofMillis(Long.parseLong(args[1]))),
                args[0],
                null);
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .registry(registry)
                .service(GateService.class, new GateServiceImpl(args.length > 2 ? args[2] : "child"))
                .build()
                .start();
        System.out.println("READY " + server.port());
        System.out.flush();
        ForkedJvm.serveUntilParentExits();
    }
}
