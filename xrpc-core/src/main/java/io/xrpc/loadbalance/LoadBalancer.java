package io.xrpc.loadbalance;

import io.xrpc.common.Invocation;
import io.xrpc.registry.ServiceInstance;
import java.util.List;

/**
 * Chooses the provider of one call. One instance serves one reference (so its state, such as
 * round-robin counters or hash rings, is per service) and is called from many threads at once:
 * implementations are thread-safe and take no locks per call.
 */
public interface LoadBalancer {

    /**
     * @param candidates the providers to choose from; never empty, not to be modified
     * @param invocation the call, for balancers that look at the method or arguments
     */
    ServiceInstance select(List<ServiceInstance> candidates, Invocation invocation);
}
