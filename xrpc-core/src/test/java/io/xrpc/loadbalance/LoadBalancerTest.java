package io.xrpc.loadbalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadBalancerTest {
    interface Api {
        String get(String key);

        String ping();
    }

    private static final ServiceKey KEY = ServiceKey.of(Api.class, "", "");
    private static final Map<Endpoint, Integer> ACTIVE = new HashMap<>();
    private static final LoadBalancerProvider.Context CONTEXT = new LoadBalancerProvider.Context() {
        @Override
        public int activeCalls(Endpoint endpoint) {
            return ACTIVE.getOrDefault(endpoint, 0);
        }

        @Override
        public int[] hashArguments() {
            return new int[] {0};
        }
    };

    private static ServiceInstance instance(int port, int weight) {
        return new ServiceInstance(KEY, new Endpoint("127.0.0.1", port), weight, List.of(), Map.of());
    }

    private static Invocation call(String method, Object... args) throws Exception {
        MethodDescriptor d = method.equals("ping")
                ? MethodDescriptor.of(Api.class.getMethod("ping"))
                : MethodDescriptor.of(Api.class.getMethod("get", String.class));
        return new Invocation(KEY, d, args, null, null, System.nanoTime());
    }

    private static Map<Integer, Integer> histogram(LoadBalancer lb, List<ServiceInstance> list, int n)
            throws Exception {
        Map<Integer, Integer> h = new HashMap<>();
        Invocation inv = call("get", "x");
        for (int i = 0; i < n; i++) {
            h.merge(lb.select(list, inv).endpoint().port(), 1, Integer::sum);
        }
        return h;
    }

    @Test
    void randomFollowsWeightsWithinStatisticalBounds() throws Exception {
        List<ServiceInstance> list = List.of(instance(1, 100), instance(2, 200), instance(3, 700));
        int n = 100_000;
        Map<Integer, Integer> h = histogram(new RandomLoadBalancer().create(CONTEXT), list, n);
        // Binomial standard deviation is at most 0.0016 of n here; 0.01 is over six of them.
        assertThat(h.get(1) / (double) n).isCloseTo(0.1, within(0.01));
        assertThat(h.get(2) / (double) n).isCloseTo(0.2, within(0.01));
        assertThat(h.get(3) / (double) n).isCloseTo(0.7, within(0.01));
    }

    @Test
    void p2cFollowsUnequalWeightsAsRandomDoesSoACanaryKeepsItsShare() throws Exception {
        List<ServiceInstance> list = List.of(instance(1, 100), instance(2, 200), instance(3, 700));
        int n = 100_000;
        Map<Integer, Integer> h = histogram(new P2cLoadBalancer().create(CONTEXT), list, n);
        assertThat(h.get(1) / (double) n).isCloseTo(0.1, within(0.01));
        assertThat(h.get(3) / (double) n).isCloseTo(0.7, within(0.01));
        // Equal weights: calls in flight decide (the one with none is chosen whenever drawn).
        List<ServiceInstance> equal = List.of(instance(4, 100), instance(5, 100), instance(6, 100));
        ACTIVE.put(equal.get(0).endpoint(), 5);
        ACTIVE.put(equal.get(1).endpoint(), 5);
        try {
            Map<Integer, Integer> e = histogram(new P2cLoadBalancer().create(CONTEXT), equal, 3000);
            assertThat(e.get(6))
                    .as("the idle provider is in 2 of 3 draws and wins each")
                    .isGreaterThan(1800);
        } finally {
            ACTIVE.clear();
        }
    }

    @Test
    void roundRobinIsExactForEqualWeightsAndSmoothForUnequal() throws Exception {
        LoadBalancer lb = new RoundRobinLoadBalancer().create(CONTEXT);
        List<ServiceInstance> equal = List.of(instance(1, 100), instance(2, 100), instance(3, 100));
        assertThat(histogram(lb, equal, 3000))
                .containsEntry(1, 1000)
                .containsEntry(2, 1000)
                .containsEntry(3, 1000);

        LoadBalancer weighted = new RoundRobinLoadBalancer().create(CONTEXT);
        List<ServiceInstance> list = List.of(instance(1, 300), instance(2, 100));
        Invocation inv = call("get", "x");
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            order.add(weighted.select(list, inv).endpoint().port());
        }
        // Smooth: never three of A in a row with B waiting past its share.
        assertThat(order).containsExactly(1, 1, 2, 1, 1, 1, 2, 1);
    }

    @Test
    void leastActivePrefersTheProviderWithFewestCallsInFlight() throws Exception {
        List<ServiceInstance> list = List.of(instance(1, 100), instance(2, 100), instance(3, 100));
        ACTIVE.clear();
        ACTIVE.put(list.get(0).endpoint(), 5);
        ACTIVE.put(list.get(1).endpoint(), 1);
        ACTIVE.put(list.get(2).endpoint(), 3);
        LoadBalancer lb = new LeastActiveLoadBalancer().create(CONTEXT);
        assertThat(histogram(lb, list, 1000)).containsOnlyKeys(2);
        ACTIVE.put(list.get(2).endpoint(), 1);
        Map<Integer, Integer> tie = histogram(lb, list, 10_000);
        assertThat(tie).containsOnlyKeys(2, 3);
        assertThat(tie.get(2) / 10_000.0).isCloseTo(0.5, within(0.03));
        ACTIVE.clear();
    }

    @Test
    void consistentHashKeepsKeysAndMovesAboutOneNthWhenAProviderJoins() throws Exception {
        LoadBalancer lb = new ConsistentHashLoadBalancer().create(CONTEXT);
        List<ServiceInstance> four = new ArrayList<>();
        for (int p = 1; p <= 4; p++) {
            four.add(instance(p, 100));
        }
        int keys = 20_000;
        Map<String, Integer> before = new HashMap<>();
        Map<Integer, Integer> load = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            int port = lb.select(four, call("get", "user-" + k)).endpoint().port();
            before.put("user-" + k, port);
            load.merge(port, 1, Integer::sum);
        }
        for (int k = 0; k < 1000; k++) {
            assertThat(lb.select(four, call("get", "user-" + k)).endpoint().port())
                    .isEqualTo(before.get("user-" + k));
        }
        // 160 virtual nodes each: every provider holds roughly a quarter.
        load.values().forEach(n -> assertThat(n / (double) keys).isCloseTo(0.25, within(0.08)));

        List<ServiceInstance> five = new ArrayList<>(four);
        five.add(instance(5, 100));
        int moved = 0;
        for (int k = 0; k < keys; k++) {
            int port = lb.select(five, call("get", "user-" + k)).endpoint().port();
            if (port != before.get("user-" + k)) {
                moved++;
                assertThat(port).as("a key that moves goes to the newcomer").isEqualTo(5);
            }
        }
        assertThat(moved / (double) keys).isCloseTo(0.2, within(0.08));
    }

    @Test
    void consistentHashWorksForMethodsWithoutArguments() throws Exception {
        LoadBalancer lb = new ConsistentHashLoadBalancer().create(CONTEXT);
        List<ServiceInstance> list = List.of(instance(1, 100), instance(2, 100), instance(3, 100));
        ServiceInstance first = lb.select(list, call("ping"));
        for (int i = 0; i < 100; i++) {
            assertThat(lb.select(list, call("ping"))).isEqualTo(first);
        }
    }
}
