package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.CallCounters;
import io.xrpc.cluster.RetryBudget;
import io.xrpc.config.Hedging;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.ClientTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One method of a reference as its cluster strategy sees it (one instance per method, made with
 * the proxy, so that every attempt has the method's model at hand): which providers may take a call (not excluded,
 * accepting the reference's serializer, and while others remain not set aside), the load
 * balancer's pick among them, and sending through the transport.
 */
final class ReferenceAttempts implements Attempts {
    private final ServiceKey key;
    private final Directory directory;
    private final Serializer serializer;
    private final Compressor compressor;
    private final ClientTransport transport;
    private final LoadBalancer loadBalancer;
    private final Retrying retrying;
    private final ClientMethod method;
    /** Null when the method is not hedged. */
    private final Hedging hedging;
    /** Null unless the hedging delay is a percentile. */
    private final LatencyWindow window;

    ReferenceAttempts(ServiceKey key, Directory directory, Serializer serializer, Compressor compressor,
                      ClientTransport transport, LoadBalancer loadBalancer, Retrying retrying, ClientMethod method) {
        this.key = key;
        this.directory = directory;
        this.serializer = serializer;
        this.compressor = compressor;
        this.transport = transport;
        this.loadBalancer = loadBalancer;
        this.retrying = retrying;
        this.method = method;
        this.hedging = retrying.hedging(method.descriptor().name(), method.idempotent());
        this.window = hedging != null && hedging.delay() == null ? new LatencyWindow(hedging.percentile()) : null;
    }

    @Override
    public ServiceInstance select(Invocation inv, Set<Endpoint> excluded) {
        List<ServiceInstance> all = directory.instances();
        List<ServiceInstance> usable = all;
        // Drop what the caller excluded, what does not take our serializer, and (while others
        // remain) what is set aside after failed connects; allocate only when dropping.
        for (int i = 0; i < all.size(); i++) {
            ServiceInstance c = all.get(i);
            if (excluded.contains(c.endpoint()) || !c.accepts(serializer.name())
                    || transport.isSetAside(c.endpoint())) {
                usable = filter(all, excluded);
                break;
            }
        }
        if (usable.isEmpty()) {
            throw new RpcException(RpcStatus.UNAVAILABLE, all.isEmpty()
                    ? "no provider for " + key + directory.emptyReason()
                    : "no provider for " + key + " left to try (tried " + excluded + ")");
        }
        ServiceInstance chosen = loadBalancer.select(usable, inv);
        inv.remote(chosen.endpoint());
        return chosen;
    }

    private List<ServiceInstance> filter(List<ServiceInstance> all, Set<Endpoint> excluded) {
        List<ServiceInstance> healthy = new ArrayList<>(all.size());
        List<ServiceInstance> setAside = new ArrayList<>(2);
        for (ServiceInstance c : all) {
            if (excluded.contains(c.endpoint()) || !c.accepts(serializer.name())) {
                continue;
            }
            (transport.isSetAside(c.endpoint()) ? setAside : healthy).add(c);
        }
        // Providers set aside are probed again when nothing else is left.
        return healthy.isEmpty() ? setAside : healthy;
    }

    @Override
    public CompletableFuture<Object> send(Invocation inv, ServiceInstance target) {
        inv.remote(target.endpoint());
        CompletableFuture<Object> f = transport.send(inv, method.target(), target.endpoint(), serializer, compressor,
                method.timeoutMillis());
        if (window != null) { // a percentile hedging delay learns from every answered attempt
            long start = System.nanoTime();
            f.whenComplete((v, t) -> {
                if (t == null) {
                    window.record(System.nanoTime() - start);
                }
            });
        }
        return f;
    }

    @Override
    public long attemptDeadline(long callDeadlineNanos) {
        long perAttempt = retrying.attemptTimeoutNanos();
        if (perAttempt <= 0) {
            return callDeadlineNanos;
        }
        long own = System.nanoTime() + perAttempt;
        return own - callDeadlineNanos < 0 ? own : callDeadlineNanos;
    }

    @Override
    public Invocation nextAttempt(Invocation inv, long deadlineNanos) {
        return copy(inv, deadlineNanos);
    }

    /** The same call, its credentials included, under {@code deadlineNanos}. */
    private static Invocation copy(Invocation inv, long deadlineNanos) {
        Invocation next = new Invocation(inv.serviceKey(), inv.method(), inv.arguments(), inv.attachmentsOrNull(),
                null, deadlineNanos);
        next.serializer(inv.serializer());
        return next;
    }

    @Override
    public int retries() {
        return retrying.retries();
    }

    @Override
    public RetryBudget budget() {
        return retrying.budget();
    }

    @Override
    public CallCounters counters() {
        return retrying.counters();
    }

    @Override
    public long hedgeDelayNanos(Invocation inv) {
        if (hedging == null) {
            return -1;
        }
        return window == null ? hedging.delay().toNanos() : window.nanos();
    }

    @Override
    public int hedgeAttempts(Invocation inv) {
        return hedging == null ? 1 : hedging.maxAttempts();
    }

    @Override
    public Invocation hedgeAttempt(Invocation inv) {
        return copy(inv, inv.deadlineNanos());
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        return retrying.timer().get().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean isIdempotent(Invocation inv) {
        return method.idempotent();
    }
}
