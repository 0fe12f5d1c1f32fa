package io.xrpc.examples.provider;

import io.xrpc.examples.api.OrderService;
import io.xrpc.spring.RpcService;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** An in-memory order desk, exported by the starter because of {@link RpcService}. */
@RpcService
public class OrderServiceImpl implements OrderService {
    private final Map<Long, Order> orders = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    @Override
    public Order place(String customer, List<Line> lines) {
        if (lines == null || lines.isEmpty()) {
            throw new IllegalArgumentException("an order needs at least one line");
        }
        Order o = new Order();
        o.id = ids.incrementAndGet();
        o.customer = customer;
        o.lines = new ArrayList<>(lines);
        o.total = lines.stream()
                .map(l -> l.unitPrice().multiply(BigDecimal.valueOf(l.quantity())))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        o.placedAt = LocalDateTime.of(2026, 11, 22, 12, 0).plusMinutes(o.id);
        orders.put(o.id, o);
        return o;
    }

    @Override
    public Order find(long id) throws OrderNotFoundException {
        Order o = orders.get(id);
        if (o == null) {
            throw new OrderNotFoundException(id);
        }
        return o;
    }

    @Override
    public CompletableFuture<List<Order>> recent(int count) {
        List<Order> r = new ArrayList<>();
        for (long id = ids.get(); id > 0 && r.size() < count; id--) {
            Order o = orders.get(id);
            if (o != null) {
                r.add(o);
            }
        }
        return CompletableFuture.completedFuture(r);
    }
}
