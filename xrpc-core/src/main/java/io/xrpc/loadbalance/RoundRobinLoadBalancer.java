package io.xrpc.loadbalance;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.registry.ServiceInstance;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code round-robin}: smooth weighted round robin (as nginx does it) per method, so a provider of
 * weight 3 beside one of weight 1 gets calls A A B A, never A A A B. With equal weights it is a
 * plain counter. Counters wrap safely through {@link Math#floorMod}.
 */
public final class RoundRobinLoadBalancer implements LoadBalancerProvider {

    @Override
    public String name() {
        return "round-robin";
    }

    @Override
    public LoadBalancer create(Context context) {
        return new Balancer();
    }

    private static final class Balancer implements LoadBalancer {
        private final ConcurrentHashMap<String, MethodState> states = new ConcurrentHashMap<>();

        @Override
        public ServiceInstance select(List<ServiceInstance> candidates, Invocation invocation) {
            int n = candidates.size();
            if (n == 1) {
                return candidates.get(0);
            }
            MethodState s = states.computeIfAbsent(invocation.method().signature(), k -> new MethodState());
            int first = candidates.get(0).weight();
            boolean same = true;
            int total = 0;
            for (int i = 0; i < n; i++) {
                int w = candidates.get(i).weight();
                same &= w == first;
                total += w;
            }
            if (same) {
                return candidates.get(Math.floorMod(s.counter.getAndIncrement(), n));
            }
            if (s.current.size() > 2 * n + 16) {
                s.current.clear(); // providers came and went; forget the departed
            }
            ServiceInstance best = null;
            AtomicLong bestCurrent = null;
            long bestValue = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                ServiceInstance c = candidates.get(i);
                AtomicLong cur = s.current.computeIfAbsent(c.endpoint(), e -> new AtomicLong());
                long v = cur.addAndGet(c.weight());
                if (v > bestValue) {
                    bestValue = v;
                    best = c;
                    bestCurrent = cur;
                }
            }
            bestCurrent.addAndGet(-total);
            return best;
        }
    }

    private static final class MethodState {
        final AtomicInteger counter = new AtomicInteger();
        final ConcurrentHashMap<Endpoint, AtomicLong> current = new ConcurrentHashMap<>();
    }
}
