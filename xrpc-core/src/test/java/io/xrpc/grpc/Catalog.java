package io.xrpc.grpc;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** A service of ordinary Java types, called by gRPC clients of several languages through its derived contract. */
public interface Catalog {

    /** Kinds of item: a proto enum by ordinal. */
    enum Kind {
        BOOK,
        TEA
    }

    /** An item: every mapped kind of field. */
    record Item(
            long id,
            String sku,
            Kind kind,
            List<String> tags,
            Map<String, Integer> stock,
            Instant added,
            Duration shelfLife,
            BigDecimal price,
            Optional<String> note,
            Integer rank,
            double weight,
            boolean active) {}

    /** A declared exception: its fields travel in the status's details. */
    final class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;
        final String sku;
        final int left;

        public OutOfStock(String sku, int left) {
            super(sku + " has only " + left + " left");
            this.sku = sku;
            this.left = left;
        }
    }

    /** A generic class: each parameterization is a message of its own. */
    record Page<T>(int number, List<T> items) {}

    Item get(long id);

    Page<Item> page(int number);

    Item save(Item item);

    List<Item> search(String text, int limit);

    void touch(String sku);

    Flow.Publisher<Item> watch(int count);

    /** As many items as the caller takes, up to {@code count}, each made only when asked for. */
    Flow.Publisher<Item> flood(int count);

    Item reserve(String sku, int quantity) throws OutOfStock;

    String secret();

    String slow(int millis);

    CompletableFuture<Integer> count(Flow.Publisher<Item> items);

    Flow.Publisher<String> echo(Flow.Publisher<String> words);

    /** Subscribes to the caller's stream and takes nothing from it: a provider that is stuck. */
    CompletableFuture<Integer> hoard(Flow.Publisher<Item> items);

    Object anything(Object value);

    String over(String a);

    String over(int a);
}
