package io.xrpc.loadbalance;

import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code least-active}: the provider with the fewest calls in flight from this client, so a slow
 * provider gets fewer calls; ties go to weighted random.
 */
public final class LeastActiveLoadBalancer implements LoadBalancerProvider {

    @Override
    public String name() {
        return "least-active";
    }

    @Override
    public LoadBalancer create(Context context) {
        return (candidates, invocation) -> select(context, candidates);
    }

    private static ServiceInstance select(Context context, List<ServiceInstance> candidates) {
        int n = candidates.size();
        if (n == 1) {
            return candidates.get(0);
        }
        int least = Integer.MAX_VALUE;
        ServiceInstance only = null;
        List<ServiceInstance> ties = null;
        for (int i = 0; i < n; i++) {
            ServiceInstance c = candidates.get(i);
            int active = context.activeCalls(c.endpoint());
            if (active < least) {
                least = active;
                only = c;
                ties = null;
            } else if (active == least) {
                if (ties == null) {
                    ties = new ArrayList<>(4);
                    ties.add(only);
                }
                ties.add(c);
            }
        }
        return ties == null ? only : RandomLoadBalancer.pickWeighted(ties);
    }
}
