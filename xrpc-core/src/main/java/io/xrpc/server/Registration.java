package io.xrpc.server;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.ServiceRegistry;
import io.xrpc.transport.ServerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's presence in its registry: the instances it registered, and their withdrawal before it
 * stops serving them. Without a registry every method does nothing. Thread-safe.
 */
final class Registration {
    private static final Logger log = LoggerFactory.getLogger(Registration.class);

    private final ServiceRegistry registry;
    private final boolean owned;
    private final Duration unregisterDelay;
    private final Map<ServiceKey, ServiceInstance> registered = new ConcurrentHashMap<>();
    /**
     * The shortest wait after a withdrawal: a ZooKeeper delete and the watches it fires take
     * milliseconds; this covers a slow registry and a busy consumer with room to spare.
     */
    static final Duration SETTLE = Duration.ofSeconds(1);

    /**
     * Opens the registry the settings name (and owns it), takes the one given, or none.
     * {@code anySerializer} is what a service that names no serializers is registered as
     * accepting: empty ("any"), or the server's serializers when some library is absent, so that
     * consumers choosing an absent one pick another provider instead of failing here.
     */
    Registration(ServerConfig c, List<String> anySerializer) {
        this.anySerializer = List.copyOf(anySerializer);
        this.owned = c.registry == null && c.registryAddress != null;
        this.registry = c.registry != null ? c.registry : owned ? Registries.create(c.registryAddress) : null;
        this.unregisterDelay = c.unregisterDelay;
    }

    private final List<String> anySerializer;

    void register(ServiceKey key, ServiceOptions options, Endpoint advertised) {
        registerAll(Map.of(key, options), advertised);
    }

    /** Registers every service at once: one write in a registry that keeps one entry per server. */
    void registerAll(Map<ServiceKey, ServiceOptions> services, Endpoint advertised) {
        if (registry == null || services.isEmpty()) {
            return;
        }
        List<ServiceInstance> instances = new ArrayList<>();
        services.forEach((key, options) -> instances.add(new ServiceInstance(
                key,
                advertised,
                options.weight(),
                options.serializers().isEmpty() ? anySerializer : options.serializers(),
                options.metadata())));
        // Recorded first: a registry that fails now may still create them on reconnecting, and
        // close() must then withdraw them.
        instances.forEach(i -> registered.put(i.serviceKey(), i));
        registry.registerAll(instances);
        log.info("Registered {} as {}", services.keySet(), advertised);
    }

    /** Unregisters {@code key}; returns whether it was registered, so consumers must be waited for. */
    boolean withdraw(ServiceKey key) {
        ServiceInstance instance = registered.remove(key);
        if (instance != null) {
            registry.unregister(instance);
        }
        return instance != null;
    }

    /** Unregisters everything, logging what fails; returns whether anything was registered. */
    boolean withdrawAll() {
        List<ServiceInstance> all = List.copyOf(registered.values());
        registered.clear();
        if (all.isEmpty()) {
            return false;
        }
        try {
            registry.unregisterAll(all);
        } catch (RuntimeException e) {
            log.warn("Could not unregister {}", all, e);
        }
        return true;
    }

    /**
     * After a withdrawal: waits for consumers to stop routing here. XRpc consumers close their
     * connections as their lists drop this server, so the wait ends when every connection has
     * closed, or after the unregister delay for consumers that keep theirs (a fixed address, a call
     * still running, a service still listed). It lasts at least {@link #SETTLE} (or the delay, if
     * shorter) all the same, for what cannot be seen from here: the registry's delete runs in the
     * background, and a consumer with no connection yet learns of it only from its watch. An
     * interrupt ends the wait; the thread stays interrupted.
     */
    void awaitConsumersLeft(ServerTransport transport) {
        if (registry == null || unregisterDelay.isZero()) {
            return;
        }
        long start = System.nanoTime();
        try {
            transport.awaitConnectionsClosed(unregisterDelay);
            Duration settle = SETTLE.compareTo(unregisterDelay) < 0 ? SETTLE : unregisterDelay;
            TimeUnit.NANOSECONDS.sleep(settle.toNanos() - (System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes the registry if this server opened it. */
    void close() {
        if (owned) {
            registry.close();
        }
    }
}
