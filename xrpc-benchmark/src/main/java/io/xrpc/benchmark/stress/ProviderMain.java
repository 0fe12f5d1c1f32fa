package io.xrpc.benchmark.stress;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.config.ServiceOptions;
import io.xrpc.server.CallThreads;
import io.xrpc.server.RpcServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A provider in a JVM of its own, started by the stress tool:
 * {@code ProviderMain xrpc|raw-netty <zookeeper connect string or -> [pool|tpe|virtual|direct] [TLS key store]}. Prints {@code READY <port>},
 * then serves until its standard input closes (so it never outlives the tool). Each line
 * {@code alloc} on its input is answered {@code ALLOC <bytes>}: the heap bytes this JVM has
 * allocated so far (see {@link HeapAllocation}).
 */
public final class ProviderMain {
    private ProviderMain() {}

    /**
     * XRpc's provider of UserService on loopback, its calls run as {@code dispatch} (pool, tpe,
     * virtual or direct) says.
     */
    public static RpcServer.Builder xrpcProvider(String dispatch) {
        if (!List.of("pool", "tpe", "virtual", "direct").contains(dispatch)) {
            throw new IllegalArgumentException("--dispatch " + dispatch + " (expected: pool, tpe, virtual or direct)");
        }
        RpcServer.Builder b = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .callThreads(dispatch.equals("virtual") ? CallThreads.VIRTUAL : CallThreads.PLATFORM);
        if (dispatch.equals("tpe")) {
            b.executor(threadPoolExecutor());
        }
        return b.service(
                UserService.class,
                new UserServiceImpl(),
                ServiceOptions.builder().nonBlocking(dispatch.equals("direct")).build());
    }

    /**
     * The call executor XRpc's server had before issue 40, kept to measure against: a
     * ThreadPoolExecutor of 200 threads and a queue of 1,024, which wakes a parked thread for every
     * call.
     */
    static ThreadPoolExecutor threadPoolExecutor() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(
                200,
                200,
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(RpcServer.DEFAULT_EXECUTOR_QUEUE),
                new DefaultThreadFactory("xrpc-server-call", true),
                new ThreadPoolExecutor.AbortPolicy());
        e.allowCoreThreadTimeOut(true);
        return e;
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
            if (args.length > 3) {
                b.tls(BenchTls.server(Path.of(args[3])));
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
