package io.xrpc.examples;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.examples.api.OrderService;
import io.xrpc.examples.provider.OrderServiceImpl;
import io.xrpc.server.RpcServer;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The same demo as {@link Demo} with the plain Java API, no Spring: starts an embedded ZooKeeper, a provider that registers there and a consumer that finds it
 * there, then calls the order desk through every serializer, with and without gzip, printing each
 * result and how long it took. Exits 0 when every call behaved, 1 otherwise. Everything listens
 * on 127.0.0.1.
 */
public final class QuickstartDemo {

    public static void main(String[] args) {
        System.exit(run() ? 0 : 1);
    }

    /** Runs the demo; true when every call returned what it should. */
    public static boolean run() {
        boolean ok = true;
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .registry("embedded")
                        .service(OrderService.class, new OrderServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().registry("embedded").build()) {
            System.out.println("provider listening on " + server.endpoint() + ", registered in an embedded ZooKeeper");
            for (String serializer : List.of("kryo", "hessian", "protostuff")) {
                for (String compressor : List.of("none", "gzip")) {
                    OrderService orders = client.proxy(
                            OrderService.class,
                            ReferenceOptions.builder()
                                    .serializer(serializer)
                                    .compressor(compressor)
                                    .build());
                    ok &= call(
                            serializer,
                            compressor,
                            "place",
                            () -> orders.place(
                                    "Ana 🚲",
                                    List.of(
                                            new OrderService.Line("BIKE-7", 1, new BigDecimal("499.90")),
                                            new OrderService.Line("LAMP-2", 2, new BigDecimal("19.95")))));
                    ok &= call(serializer, compressor, "find", () -> orders.find(1));
                    ok &= call(
                            serializer,
                            compressor,
                            "recent",
                            () -> orders.recent(3).get(3, TimeUnit.SECONDS));
                    try {
                        orders.place("Nobody", List.of());
                        System.out.println("  place(empty) did not fail");
                        ok = false;
                    } catch (RpcException e) {
                        System.out.printf(
                                "%-10s %-4s %-8s -> RpcException %s: %s%n",
                                serializer, compressor, "invalid", e.status(), e.remoteMessage());
                    }
                }
            }
        }
        System.out.println(ok ? "demo finished: every call behaved" : "demo FAILED");
        return ok;
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static boolean call(String serializer, String compressor, String name, Call c) {
        long start = System.nanoTime();
        try {
            Object result = c.run();
            double ms = (System.nanoTime() - start) / 1e6;
            System.out.printf("%-10s %-4s %-8s -> %s (%.2f ms)%n", serializer, compressor, name, result, ms);
            return result != null;
        } catch (Exception e) {
            System.out.printf("%-10s %-4s %-8s -> FAILED %s%n", serializer, compressor, name, e);
            return false;
        }
    }
}
