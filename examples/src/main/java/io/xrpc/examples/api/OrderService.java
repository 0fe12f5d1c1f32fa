package io.xrpc.examples.api;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The demo's service: a small order desk. */
public interface OrderService {

    Order place(String customer, List<Line> lines);

    Order find(long id) throws OrderNotFoundException;

    CompletableFuture<List<Order>> recent(int count);

    /** A line of an order: a record, as a new service would write it. */
    record Line(String sku, int quantity, BigDecimal unitPrice) {
        public Line {
            if (quantity < 1) {
                throw new IllegalArgumentException("quantity " + quantity + " (expected: at least 1)");
            }
        }
    }

    /** Declared by {@link #find}: the caller catches it as itself, with its field. */
    class OrderNotFoundException extends Exception {
        private static final long serialVersionUID = 1L;
        private final long id;

        public OrderNotFoundException(long id) {
            super("no order #" + id);
            this.id = id;
        }

        public long id() {
            return id;
        }
    }

    /** An order as the desk stores it. */
    class Order {
        public long id;
        public String customer;
        public List<Line> lines = new ArrayList<>();
        public BigDecimal total;
        public LocalDateTime placedAt;

        @Override
        public String toString() {
            return "Order#" + id + "[" + customer + ", " + lines.size() + " lines, total " + total + ", " + placedAt
                    + "]";
        }
    }
}
