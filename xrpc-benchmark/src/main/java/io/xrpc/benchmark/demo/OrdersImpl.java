package io.xrpc.benchmark.demo;

import io.xrpc.server.Authenticator;
import io.xrpc.stream.Streams;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

/** The demo's {@link Orders}: ten of every SKU in stock, whatever was ordered before (it keeps nothing). */
public final class OrdersImpl implements Orders {
    /** The token {@link #cancel} asks for, as {@code authorization: Bearer demo-token}. */
    public static final String TOKEN = "demo-token";

    private static final int STOCK = 10;
    private final AtomicLong ids = new AtomicLong();

    @Override
    public Order place(String sku, int quantity) throws OutOfStock {
        if (quantity > STOCK) {
            throw new OutOfStock(sku, STOCK);
        }
        return new Order(ids.incrementAndGet(), sku, quantity);
    }

    @Override
    public Flow.Publisher<Order> recent(int count) {
        return Streams.fromStream(() -> LongStream.rangeClosed(1, count).mapToObj(i -> new Order(i, "tea", 1)));
    }

    @Override
    public boolean cancel(long id) {
        return true;
    }

    /** The demo provider's authenticator: {@link #cancel} needs the token, everything else is open. */
    public static Authenticator authenticator() {
        return (credentials, service, method, peer) -> service.interfaceName().equals(Orders.class.getName())
                        && method.name().equals("cancel")
                        && !("Bearer " + TOKEN).equals(credentials)
                ? "Orders.cancel needs authorization: Bearer " + TOKEN
                : null;
    }
}
