package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.Hedging;
import io.xrpc.internal.Invocations;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.transport.CallTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One method of a reference, as its {@link Cluster} strategy works with it: which providers may
 * take a call (not excluded, accepting the reference's serializer, and while others remain not set
 * aside), the load balancer's pick among them, sending one attempt through the transport, and the
 * rules of retries and hedges. Made by {@link Providers#attempts} once per method; thread-safe.
 * A request walks down from here: the directory, the balancer, the transport; nothing here calls
 * back up into the client.
 */
public final class Attempts {
    private final Providers providers;
    private final CallTarget target;
    private final long timeoutMillis;
    private final boolean idempotent;
    /** Null when the method is not hedged. */
    private final Hedging hedging;
    /** Null unless the hedging delay is a percentile. */
    private final LatencyWindow window;

    Attempts(Providers providers, CallTarget target, long timeoutMillis, boolean idempotent, Hedging hedging) {
        this.providers = providers;
        this.target = target;
        this.timeoutMillis = timeoutMillis;
        this.idempotent = idempotent;
        this.hedging = hedging;
        this.window = hedging != null && hedging.delay() == null ? new LatencyWindow(hedging.percentile()) : null;
    }

    /**
     * A provider for the call chosen by the load balancer among the current providers (within the
     * reference's subset when it has one, and outside it when none there can take the call),
     * skipping {@code excluded} and, while others remain, providers whose connections keep failing.
     *
     * @throws RpcException UNAVAILABLE naming the service when no provider is left
     */
    public ServiceInstance select(Invocation inv, Set<Endpoint> excluded) {
        List<ServiceInstance> all = providers.directory.instances();
        List<ServiceInstance> window = providers.aperture.window(all);
        List<ServiceInstance> usable = window;
        String serializer = providers.serializer.name();
        // Drop what the caller excluded, what does not take our serializer, and (while others
        // remain) what is set aside after failed connects; allocate only when dropping.
        for (int i = 0; i < window.size(); i++) {
            ServiceInstance c = window.get(i);
            if (excluded.contains(c.endpoint())
                    || !c.accepts(serializer)
                    || providers.transport.isSetAside(c.endpoint())) {
                usable = filter(window, excluded, window != all);
                break;
            }
        }
        if (usable.isEmpty() && window != all) {
            usable = filter(all, excluded, false); // failover outside the subset
        }
        if (usable.isEmpty()) {
            throw new RpcException(
                    RpcStatus.UNAVAILABLE,
                    all.isEmpty()
                            ? "no provider for " + providers.key + providers.directory.emptyReason()
                            : "no provider for " + providers.key + " left to try (tried " + excluded + ")");
        }
        ServiceInstance chosen = providers.loadBalancer.select(usable, inv);
        Invocations.remote(inv, chosen.endpoint());
        return chosen;
    }

    /**
     * What of {@code list} may take the call: the healthy ones, else (unless {@code healthyOnly},
     * for a subset that the whole list backs) those set aside, probed again when nothing else is left.
     */
    private List<ServiceInstance> filter(List<ServiceInstance> list, Set<Endpoint> excluded, boolean healthyOnly) {
        List<ServiceInstance> healthy = new ArrayList<>(list.size());
        List<ServiceInstance> setAside = new ArrayList<>(2);
        String serializer = providers.serializer.name();
        for (ServiceInstance c : list) {
            if (excluded.contains(c.endpoint()) || !c.accepts(serializer)) {
                continue;
            }
            (providers.transport.isSetAside(c.endpoint()) ? setAside : healthy).add(c);
        }
        return healthy.isEmpty() && !healthyOnly ? setAside : healthy;
    }

    /** Sends one attempt to {@code provider}. */
    public CompletableFuture<Object> send(Invocation inv, ServiceInstance provider) {
        Invocations.remote(inv, provider.endpoint());
        CompletableFuture<Object> f = providers.transport.send(
                inv, target, provider.endpoint(), providers.serializer, providers.compressor, timeoutMillis);
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

    /**
     * When an attempt that starts now must end: the call's deadline ({@code callDeadlineNanos},
     * which holds across all its attempts), or sooner when the reference bounds each attempt
     * ({@link io.xrpc.config.ReferenceOptions#attemptTimeout()}).
     */
    public long attemptDeadline(long callDeadlineNanos) {
        long perAttempt = providers.attemptTimeoutNanos;
        if (perAttempt <= 0) {
            return callDeadlineNanos;
        }
        long own = System.nanoTime() + perAttempt;
        return own - callDeadlineNanos < 0 ? own : callDeadlineNanos;
    }

    /**
     * Tells the caller's invocation what its attempt learned (the provider chosen, the request's
     * bytes): for a cluster that sent {@code attempt}, a copy made by {@link #nextAttempt}, in the
     * call's place, so that the caller's interceptors and observations see it.
     */
    public void reportAttempt(Invocation call, Invocation attempt) {
        Invocations.remote(call, attempt.remote());
        Invocations.requestBytes(call, attempt.requestBytes());
    }

    /** The same call under {@code deadlineNanos}, for another attempt. */
    public Invocation nextAttempt(Invocation inv, long deadlineNanos) {
        return copy(inv, deadlineNanos);
    }

    /** The same call, its credentials included, under {@code deadlineNanos}. */
    private static Invocation copy(Invocation inv, long deadlineNanos) {
        Invocation next = new Invocation(
                inv.serviceKey(), inv.method(), inv.arguments(), inv.attachmentsOrNull(), null, deadlineNanos);
        Invocations.serializer(next, inv.serializer());
        Invocations.responses(next, inv.responses());
        return next;
    }

    /** How many times a failed call may be tried again. */
    public int retries() {
        return providers.retries();
    }

    /** Whether the method is marked {@link io.xrpc.common.Idempotent}. */
    public boolean isIdempotent(Invocation inv) {
        return idempotent;
    }

    /** The reference's retry budget, which every retry and hedge spends from. */
    public RetryBudget budget() {
        return providers.budget();
    }

    /** Where the reference's retries and hedges are counted. */
    public CallCounters counters() {
        return providers.counters();
    }

    /**
     * How long a call waits for an answer before it is hedged, in nanoseconds; -1 when it is not
     * hedged (the method is not {@code @Idempotent}, the reference does not hedge it, or a
     * percentile delay has too few samples yet).
     */
    public long hedgeDelayNanos(Invocation inv) {
        if (hedging == null) {
            return -1;
        }
        return window == null ? hedging.delay().toNanos() : window.nanos();
    }

    /** The most attempts a hedged call makes in all. */
    public int hedgeAttempts(Invocation inv) {
        return hedging == null ? 1 : hedging.maxAttempts();
    }

    /** The same call under the same deadline, for a hedged attempt. */
    public Invocation hedgeAttempt(Invocation inv) {
        return copy(inv, inv.deadlineNanos());
    }

    /** Runs {@code task} once after {@code delayNanos}, on a thread that must not block; cancel to drop it. */
    public Future<?> schedule(Runnable task, long delayNanos) {
        return providers.timer.get().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
}
