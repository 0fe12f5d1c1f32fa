package io.xrpc.client;

import io.xrpc.cluster.Providers;
import io.xrpc.common.Endpoint;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.transport.ClientTransport;
import io.xrpc.transport.ProviderState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every reference one client made, in the order made: what operators see of them
 * ({@link RpcClient#references()}), and the connections to providers none of them lists any more,
 * closed soon after the providers leave. Thread-safe.
 */
final class References {
    /** How long a departure waits for others before connections are pruned. */
    private static final long PRUNE_DELAY_MILLIS = 100;

    /** A reference: the providers it follows, and its settings as {@link #views} reports them. */
    record Made(
            Providers providers,
            String type,
            String source,
            String loadBalancer,
            String cluster,
            String serializer,
            String compressor,
            Duration timeout) {}

    private final ClientTransport transport;
    private final List<Made> made = new CopyOnWriteArrayList<>();
    private final AtomicBoolean pruneQueued = new AtomicBoolean();
    private volatile boolean closed;

    References(ClientTransport transport) {
        this.transport = transport;
    }

    void add(Made reference) {
        made.add(reference);
    }

    int size() {
        return made.size();
    }

    /** Each reference's service key and how many providers it sees now. */
    List<Map.Entry<String, Integer>> providerCounts() {
        List<Map.Entry<String, Integer>> counts = new ArrayList<>();
        for (Made m : made) {
            counts.add(Map.entry(
                    m.providers().key().toString(),
                    m.providers().directory().instances().size()));
        }
        return counts;
    }

    /** Each reference with the providers it sees now and their connection state. */
    List<ReferenceView> views() {
        List<ReferenceView> views = new ArrayList<>(made.size());
        Instant wall = Instant.now();
        for (Made m : made) {
            List<ReferenceView.Provider> providers = new ArrayList<>();
            for (ServiceInstance i : m.providers().directory().instances()) {
                ProviderState s = transport.providerState(i.endpoint());
                ReferenceView.State state = s.setAsideNanos() > 0
                        ? ReferenceView.State.SET_ASIDE
                        : s.openConnections() > 0
                                ? ReferenceView.State.CONNECTED
                                : s.connecting() ? ReferenceView.State.CONNECTING : ReferenceView.State.IDLE;
                providers.add(new ReferenceView.Provider(
                        i.endpoint(),
                        state,
                        s.openConnections(),
                        s.activeCalls(),
                        s.setAsideNanos() > 0 ? wall.plusNanos(s.setAsideNanos()) : null,
                        List.copyOf(i.serializers())));
            }
            Providers p = m.providers();
            views.add(new ReferenceView(
                    p.key(),
                    m.type(),
                    m.source(),
                    m.loadBalancer(),
                    m.cluster(),
                    m.serializer(),
                    m.compressor(),
                    m.timeout(),
                    p.retries(),
                    p.budget().tokens(),
                    p.counters().snapshot(),
                    List.copyOf(providers)));
        }
        return views;
    }

    /**
     * Prunes connections shortly: the lists of all references are walked once for however many
     * changes arrive meanwhile (a provider serving 20 services leaves 20 lists at once).
     */
    void pruneSoon() {
        pruneAfter(PRUNE_DELAY_MILLIS);
    }

    private void pruneAfter(long millis) {
        if (pruneQueued.compareAndSet(false, true)) {
            CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(() -> {
                pruneQueued.set(false); // first: a change during the walk queues another
                if (pruneConnections() && !closed) {
                    pruneAfter(1000); // calls were in flight to a provider that left: again later
                }
            });
        }
    }

    /**
     * Closes connections to providers no reference lists any more (they left the registry);
     * returns whether some were kept for their calls in flight.
     */
    private boolean pruneConnections() {
        Set<Endpoint> keep = new HashSet<>();
        for (Made m : made) {
            for (ServiceInstance i : m.providers().subset()) {
                keep.add(i.endpoint());
            }
        }
        return transport.retainOnly(keep);
    }

    /** Stops following every reference's providers. */
    void close() {
        closed = true;
        for (Made m : made) {
            m.providers().directory().close();
        }
    }
}
