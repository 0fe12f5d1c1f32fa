package io.xrpc.grpc;

import io.xrpc.stream.Streams;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

/** What the gRPC tests call. */
public class CatalogImpl implements Catalog {
    static final Instant ADDED = Instant.parse("2026-11-28T10:15:30.123456789Z");

    /** A server of this Catalog on 127.0.0.1 whose {@code secret} asks for {@code authorization: Bearer good}. */
    public static io.xrpc.server.RpcServer.Builder guarded() {
        return io.xrpc.server.RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new CatalogImpl())
                .authenticator((credentials, svc, method, peer) ->
                        method.name().equals("secret") && !"Bearer good".equals(credentials)
                                ? "a valid bearer token is required"
                                : null);
    }

    static Item item(long id) {
        return new Item(
                id,
                "sku-" + id,
                id % 2 == 0 ? Kind.TEA : Kind.BOOK,
                List.of("a", "b"),
                Map.of("berlin", 3),
                ADDED,
                Duration.ofDays(30).plusMillis(5),
                new BigDecimal("12.50"),
                id % 2 == 0 ? Optional.of("fragile") : Optional.empty(),
                id % 3 == 0 ? null : (int) id,
                1.5 * id,
                true);
    }

    @Override
    public Item get(long id) {
        return item(id);
    }

    @Override
    public Page<Item> page(int number) {
        return new Page<>(number, List.of(item(number), item(number + 1)));
    }

    @Override
    public Item save(Item item) {
        return item;
    }

    @Override
    public List<Item> search(String text, int limit) {
        List<Item> out = new ArrayList<>();
        for (int i = 1; i <= limit; i++) {
            out.add(item(i));
        }
        return out;
    }

    @Override
    public void touch(String sku) {}

    @Override
    public Flow.Publisher<Item> watch(int count) {
        List<Item> items = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            items.add(item(i));
        }
        return Streams.fromIterable(items);
    }

    /** Items {@link #flood} has made so far. */
    public static final AtomicInteger FLOODED = new AtomicInteger();

    @Override
    public Flow.Publisher<Item> flood(int count) {
        return Streams.fromStream(
                () -> java.util.stream.IntStream.range(0, count).mapToObj(i -> {
                    FLOODED.incrementAndGet();
                    return item(i);
                }));
    }

    @Override
    public Item reserve(String sku, int quantity) throws OutOfStock {
        if (quantity > 10) {
            throw new OutOfStock(sku, 10);
        }
        return item(quantity);
    }

    @Override
    public String secret() {
        return "the secret";
    }

    @Override
    public String slow(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "done";
    }

    @Override
    public CompletableFuture<Integer> count(Flow.Publisher<Item> items) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        AtomicInteger n = new AtomicInteger();
        items.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Item item) {
                n.incrementAndGet();
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(n.get());
            }
        });
        return done;
    }

    @Override
    public Flow.Publisher<String> echo(Flow.Publisher<String> words) {
        return Streams.map(words, w -> w.toUpperCase(java.util.Locale.ROOT));
    }

    @Override
    public CompletableFuture<Integer> hoard(Flow.Publisher<Item> items) {
        items.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {} // requests nothing

            @Override
            public void onNext(Item item) {}

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onComplete() {}
        });
        return new CompletableFuture<>(); // the call's deadline ends it
    }

    @Override
    public Object anything(Object value) {
        return value;
    }

    @Override
    public String over(String a) {
        return a;
    }

    @Override
    public String over(int a) {
        return Integer.toString(a);
    }
}
