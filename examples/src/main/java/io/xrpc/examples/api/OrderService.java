package io.xrpc.examples.api;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The demo's service: a small order desk. */
public interface OrderService {

    Order place(String customer, List<Line> lines);

    Order find(long id);

    CompletableFuture<List<Order>> recent(int count);

    /** A line of an order. */
    class Line {
        public String sku;
        public int quantity;
        public BigDecimal unitPrice;

        public Line() {
        }

        public Line(String sku, int quantity, BigDecimal unitPrice) {
            this.sku = sku;
            this.quantity = quantity;
            this.unitPrice = unitPrice;
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
            return "Order#" + id + "[" + customer + ", " + lines.size() + " lines, total " + total + ", " + placedAt + "]";
        }
    }
}
