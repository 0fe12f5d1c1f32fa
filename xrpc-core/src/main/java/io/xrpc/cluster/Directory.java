package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The providers of one reference: fixed addresses, or a registry subscription's last known list.
 * A reference's {@link Providers} reads it on every call; made by the client with the reference.
 */
public interface Directory extends AutoCloseable {
    /**
     * Where the two moments an operator needs are logged, a reference's last provider gone and one
     * back: the client's logger, where every line about references is (docs/OBSERVABILITY.md).
     */
    Logger LOG = LoggerFactory.getLogger("io.xrpc.client.RpcClient");

    /** The current providers; an immutable list, replaced (not changed) when providers change. */
    List<ServiceInstance> instances();

    /** Why the list is empty, appended to the "no provider for ..." message. */
    String emptyReason();

    /** The service whose providers these are. */
    ServiceKey key();

    @Override
    void close();

    /** The providers at {@code addresses}, which never change. */
    static Directory fixed(ServiceKey key, List<Endpoint> addresses) {
        List<ServiceInstance> list = new ArrayList<>();
        for (Endpoint e : addresses) {
            list.add(ServiceInstance.of(key, e));
        }
        List<ServiceInstance> instances = List.copyOf(list);
        return new Directory() {
            @Override
            public List<ServiceInstance> instances() {
                return instances;
            }

            @Override
            public String emptyReason() {
                return " (no address given)";
            }

            @Override
            public ServiceKey key() {
                return key;
            }

            @Override
            public void close() {}

            @Override
            public String toString() {
                return addresses.toString();
            }
        };
    }

    /**
     * Follows {@code key} in {@code discovery}; {@code onShrink} runs after an update that did not
     * grow the list (a provider may have left: arrivals, the bulk of a rolling restart's events,
     * cost nothing beyond the registry's own work). Logs a
     * WARN when the last provider goes and an INFO when there is one again: the two moments an
     * operator needs, and nothing per ordinary change.
     */
    static Directory discovered(ServiceKey key, ServiceDiscovery discovery, Runnable onShrink) {
        // The provider count last seen; -1 until the subscription's first list is known.
        AtomicInteger last = new AtomicInteger(-1);
        ServiceDiscovery.Subscription sub = discovery.subscribe(key, list -> {
            int before = last.getAndSet(list.size());
            if (before > 0 && list.isEmpty()) {
                LOG.warn(
                        "{} has no provider any more{}; its calls fail with UNAVAILABLE until one comes back",
                        key,
                        discovery.isConnected() ? " in the registry" : " (the registry is not connected)");
            } else if (before == 0 && !list.isEmpty()) {
                LOG.info(
                        "{} has {} provider(s) now: {}",
                        key,
                        list.size(),
                        list.stream().map(ServiceInstance::endpoint).toList());
            }
            if (before < 0 || list.size() <= before) {
                onShrink.run();
            }
        });
        last.compareAndSet(-1, sub.instances().size());
        return new Directory() {
            @Override
            public List<ServiceInstance> instances() {
                return sub.instances();
            }

            @Override
            public String emptyReason() {
                return discovery.isConnected() ? " in the registry" : " known yet: the registry is not connected";
            }

            @Override
            public ServiceKey key() {
                return key;
            }

            @Override
            public void close() {
                sub.close();
            }

            @Override
            public String toString() {
                return "registry";
            }
        };
    }
}
