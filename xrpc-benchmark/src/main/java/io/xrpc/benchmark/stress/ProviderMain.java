package io.xrpc.benchmark.stress;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.config.ServiceOptions;
import io.xrpc.server.CallThreads;
import io.xrpc.server.RpcServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A provider in a JVM of its own, started by the stress tool:
 * {@code ProviderMain xrpc|raw-netty <zookeeper connect string or -> [pool|virtual|direct]}. Prints {@code READY <port>},
 * then serves until its standard input closes (so it never outlives the tool). Each line
 * {@code alloc} on its input is answered {@code ALLOC <bytes>}: the heap bytes this JVM has
 * allocated so far (see {@link HeapAllocation}).
 */
public final class ProviderMain {
    private ProviderMain() {}

    /** XRpc's provider of UserService on loopback, its calls run as {@code dispatch} (pool, virtual or direct) says. */
    public static RpcServer.Builder xrpcProvider(String dispatch) {
        if (!List.of("pool", "virtual", "direct").contains(dispatch)) {
            throw new IllegalArgumentException("--dispatch " + dispatch + " (expected: pool, virtual or direct)");
        }
        return RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .callThreads(dispatch.equals("virtual") ? CallThreads.VIRTUAL : CallThreads.PLATFORM)
                .service(
                        UserService.class,
                        new UserServiceImpl(),
                        ServiceOptions.builder()
                                .nonBlocking(dispatch.equals("direct"))
                                .build());
    }

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        String registry = args.length > 1 ? args[1] : "-";
        String dispatch = args.length > 2 ? args[2] : "pool";
        AutoCloseable server;
        int port;
        Contender peer = kind.equals("xrpc") || kind.equals("raw-netty") ? null : Contender.peer(kind);
        if (peer != null) {
            int[] p = new int[1];
            server = peer.startServer(p);
            port = p[0];
        } else if (kind.equals("raw-netty")) {
            RawNetty.Server raw = new RawNetty.Server(0, Runtime.getRuntime().availableProcessors());
            server = raw;
            port = raw.port();
        } else {
            RpcServer.Builder b = xrpcProvider(dispatch);
            if (!registry.equals("-")) {
                b.registry("zookeeper://" + registry);
            }
            RpcServer s = b.build().start();
            server = s;
            port = s.port();
        }
        System.out.println("READY " + port);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("alloc")) {
                System.out.println("ALLOC " + HeapAllocation.total());
                System.out.flush();
            }
        }
        server.close();
    }
}
