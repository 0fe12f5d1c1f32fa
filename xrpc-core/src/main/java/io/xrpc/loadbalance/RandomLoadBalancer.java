package io.xrpc.loadbalance;

import io.xrpc.common.Invocation;
import io.xrpc.registry.ServiceInstance;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** {@code random}: each provider with probability proportional to its weight. */
public final class RandomLoadBalancer implements LoadBalancer, LoadBalancerProvider {

    @Override
    public String name() {
        return "random";
    }

    @Override
    public LoadBalancer create(Context context) {
        return this;
    }

    @Override
    public ServiceInstance select(List<ServiceInstance> candidates, Invocation invocation) {
        return pickWeighted(candidates);
    }

    static ServiceInstance pickWeighted(List<ServiceInstance> candidates) {
        int n = candidates.size();
        if (n == 1) {
            return candidates.get(0);
        }
        int total = 0;
        boolean same = true;
        int first = candidates.get(0).weight();
        for (int i = 0; i < n; i++) {
            int w = candidates.get(i).weight();
            total += w;
            same &= w == first;
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        if (same) {
            // Within a subset, a provider the window covers in part is drawn in that proportion.
            return candidates.get(candidates instanceof Aperture.Window w ? w.pick(r) : r.nextInt(n));
        }
        int x = r.nextInt(total);
        for (int i = 0; i < n; i++) {
            x -= candidates.get(i).weight();
            if (x < 0) {
                return candidates.get(i);
            }
        }
        return candidates.get(n - 1);
    }
}
