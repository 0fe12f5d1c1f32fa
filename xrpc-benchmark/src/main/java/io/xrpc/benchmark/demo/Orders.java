package io.xrpc.benchmark.demo;

import java.util.concurrent.Flow;

/**
 * The demo provider's second service, for what {@code UserService} does not show: a declared
 * exception, a server stream and a method that needs a token. {@code xrpc demo-provider} serves it
 * beside the stress tool's {@code UserService}.
 */
public interface Orders {
    /** Places an order; more than the stock left throws {@link OutOfStock}, with what is left. */
    Order place(String sku, int quantity) throws OutOfStock;

    /** The last {@code count} orders, one message each, as a server stream. */
    Flow.Publisher<Order> recent(int count);

    /** Cancels an order: the demo provider asks for {@code authorization: Bearer demo-token} here. */
    boolean cancel(long id);
}
