package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery.Listener;
import io.xrpc.registry.ServiceDiscovery.Subscription;
import io.xrpc.registry.ServiceInstance;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Both layouts read, for a fleet moving from one to the other: the union of the two lists by
 * address, the per-instance entry first.
 */
final class UnionSubscription implements Subscription {
    private final ServiceKey key;
    private final Listener listener;
    private volatile List<ServiceInstance> instances = List.of();
    private final Subscription perInstance;
    private final Subscription perService;

    UnionSubscription(ServiceKey key, Listener listener, Subscriptions layouts) {
        this.key = key;
        this.listener = listener;
        this.perInstance = layouts.subscribe(key, l -> update(), false);
        this.perService = layouts.subscribe(key, l -> update(), true);
        update();
    }

    private synchronized void update() {
        if (perInstance == null || perService == null) {
            return; // the constructor's own update() comes
        }
        Map<Endpoint, ServiceInstance> all = new LinkedHashMap<>();
        perService.instances().forEach(i -> all.put(i.endpoint(), i));
        perInstance.instances().forEach(i -> all.put(i.endpoint(), i));
        List<ServiceInstance> next = List.copyOf(all.values());
        if (!next.equals(instances)) {
            instances = next;
            ProviderList.deliver(listener, next, key);
        }
    }

    @Override
    public List<ServiceInstance> instances() {
        return instances;
    }

    @Override
    public void close() {
        perInstance.close();
        perService.close();
    }
}
