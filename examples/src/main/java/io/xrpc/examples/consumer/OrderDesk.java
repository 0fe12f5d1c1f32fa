package io.xrpc.examples.consumer;

import io.xrpc.common.RpcException;
import io.xrpc.examples.api.OrderService;
import io.xrpc.spring.RpcReference;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/** Calls the order service through one injected reference per serializer and compressor. */
@Component
public class OrderDesk {
    @RpcReference(serializer = "kryo")
    OrderService kryo;

    @RpcReference(serializer = "kryo", compressor = "gzip")
    OrderService kryoGzip;

    @RpcReference(serializer = "hessian")
    OrderService hessian;

    @RpcReference(serializer = "hessian", compressor = "gzip")
    OrderService hessianGzip;

    @RpcReference(serializer = "protostuff")
    OrderService protostuff;

    @RpcReference(serializer = "protostuff", compressor = "gzip")
    OrderService protostuffGzip;

    private interface Call {
        Object run() throws Exception;
    }

    /** Places, finds and lists orders through every reference; prints each result and its time. */
    public boolean run() {
        Map<String, OrderService> refs = new LinkedHashMap<>();
        refs.put("kryo", kryo);
        refs.put("kryo+gzip", kryoGzip);
        refs.put("hessian", hessian);
        refs.put("hessian+gzip", hessianGzip);
        refs.put("protostuff", protostuff);
        refs.put("protostuff+gzip", protostuffGzip);
        boolean ok = true;
        for (Map.Entry<String, OrderService> e : refs.entrySet()) {
            OrderService orders = e.getValue();
            ok &= call(
                    e.getKey(),
                    "place",
                    () -> orders.place(
                            "Ana 🚲",
                            List.of(
                                    new OrderService.Line("BIKE-7", 1, new BigDecimal("499.90")),
                                    new OrderService.Line("LAMP-2", 2, new BigDecimal("19.95")))));
            ok &= call(e.getKey(), "find", () -> orders.find(1));
            ok &= call(e.getKey(), "recent", () -> orders.recent(3).get(3, TimeUnit.SECONDS));
            try {
                orders.find(404);
                System.out.printf("%-16s %-7s -> did not fail%n", e.getKey(), "missing");
                ok = false;
            } catch (OrderService.OrderNotFoundException ex) {
                // declared by find: it arrives as itself, with its field
                System.out.printf("%-16s %-7s -> %s (id %d)%n", e.getKey(), "missing", ex, ex.id());
                ok &= ex.id() == 404;
            }
            try {
                orders.place("Nobody", List.of());
                System.out.printf("%-16s %-7s -> did not fail%n", e.getKey(), "invalid");
                ok = false;
            } catch (RpcException ex) {
                System.out.printf(
                        "%-16s %-7s -> %s from %s: %s%n",
                        e.getKey(), "invalid", ex.status(), ex.remoteClassName(), ex.remoteMessage());
            }
        }
        return ok;
    }

    private static boolean call(String ref, String name, Call c) {
        long start = System.nanoTime();
        try {
            Object result = c.run();
            System.out.printf("%-16s %-7s -> %s (%.2f ms)%n", ref, name, result, (System.nanoTime() - start) / 1e6);
            return result != null;
        } catch (Exception e) {
            System.out.printf("%-16s %-7s -> FAILED %s%n", ref, name, e);
            return false;
        }
    }
}
