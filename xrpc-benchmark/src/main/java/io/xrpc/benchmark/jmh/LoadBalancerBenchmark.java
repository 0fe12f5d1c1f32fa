package io.xrpc.benchmark.jmh;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.loadbalance.LeastActiveLoadBalancer;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.loadbalance.P2cLoadBalancer;
import io.xrpc.loadbalance.RandomLoadBalancer;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One provider choice per operation, by the balancers a reference may name, over {@code providers}
 * candidates. The context reads calls in flight and latency from concurrent maps, as the
 * transport's does (a map lookup and a volatile read each), so the difference between two
 * balancers is what choosing costs, not what the numbers are.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoadBalancerBenchmark {
    @Param({"3", "50"})
    int providers;

    private List<ServiceInstance> candidates;
    private LoadBalancer random;
    private LoadBalancer leastActive;
    private LoadBalancer p2c;

    @Setup
    public void setUp() {
        Map<Endpoint, AtomicInteger> active = new ConcurrentHashMap<>();
        Map<Endpoint, AtomicLong> latency = new ConcurrentHashMap<>();
        candidates = new ArrayList<>();
        ServiceKey key = new ServiceKey("com.acme.Orders", "", "");
        for (int i = 0; i < providers; i++) {
            Endpoint e = new Endpoint("10.0.0." + i, 20880);
            candidates.add(new ServiceInstance(key, e, 100, List.of(), Map.of()));
            active.put(e, new AtomicInteger(i % 4));
            latency.put(e, new AtomicLong(1_000_000L + 10_000L * i));
        }
        LoadBalancerProvider.Context context = new LoadBalancerProvider.Context() {
            @Override
            public int activeCalls(Endpoint endpoint) {
                return active.get(endpoint).get();
            }

            @Override
            public long latencyNanos(Endpoint endpoint) {
                return latency.get(endpoint).get();
            }

            @Override
            public int[] hashArguments() {
                return new int[] {0};
            }
        };
        random = new RandomLoadBalancer().create(context);
        leastActive = new LeastActiveLoadBalancer().create(context);
        p2c = new P2cLoadBalancer().create(context);
    }

    @Benchmark
    public ServiceInstance random() {
        return random.select(candidates, null);
    }

    @Benchmark
    public ServiceInstance leastActive() {
        return leastActive.select(candidates, null);
    }

    @Benchmark
    public ServiceInstance p2c() {
        return p2c.select(candidates, null);
    }
}
