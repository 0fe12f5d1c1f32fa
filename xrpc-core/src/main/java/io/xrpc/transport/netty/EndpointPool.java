package io.xrpc.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.transport.ClientTransport;
import io.xrpc.transport.ProviderState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The connections to one provider: a fixed number of slots, each holding one multiplexed
 * connection, chosen round-robin. A slot connects once however many threads ask at the same time
 * (the first one's attempt is everyone's), and after a failed attempt waits an exponentially
 * growing backoff before the next, failing calls at once meanwhile instead of letting each one
 * wait for a connect timeout.
 */
final class EndpointPool {
    /** The pool a connection belongs to, for its channel's initializer. */
    static final AttributeKey<EndpointPool> POOL = AttributeKey.valueOf("xrpc.endpointPool");

    private final Endpoint endpoint;
    private final Bootstrap bootstrap;
    private final ClientTransport.Settings settings;
    private final Slot[] slots;
    private final AtomicInteger next = new AtomicInteger();
    /** Calls to this provider in flight, for the least-active and p2c balancers. */
    final AtomicInteger active = new AtomicInteger();
    /**
     * Its latency as this client sees it, made when a latency-aware balancer (p2c) first asks:
     * until then a call's end records nothing.
     */
    volatile LatencyEstimate latency;
    /** Bytes of requests to this provider encoded and not yet handed to its socket. */
    final AtomicLong queuedRequestBytes = new AtomicLong();
    /** Set while {@link NettyClientTransport#retainOnly} removes this pool; senders then skip it. */
    volatile boolean retired;
    /** Until when (nanoTime) the last connect failure sets this provider aside; 0 when healthy. */
    private volatile long setAsideUntil;
    /** Consecutive unanswered calls; see {@link ProviderHealth}. */
    final ProviderHealth health;
    /** When (nanoTime) anything was last read from this provider, on any connection. */
    volatile long heardNanos;
    /** When (nanoTime) its calls in flight last went from none to one. */
    volatile long busySinceNanos;
    /** When (nanoTime) a ping was sent to it for silence while calls waited; 0 when none is out. The watch's loop only. */
    private long pingSentNanos;

    /**
     * How long the provider has been silent while calls wait on it: since it last sent anything,
     * or since its calls began if that is later; 0 when nothing is in flight.
     */
    long silentNanos(long now) {
        if (active.get() == 0) {
            return 0;
        }
        long heard = heardNanos;
        long busy = busySinceNanos;
        return Math.max(0, now - (heard - busy > 0 ? heard : busy)); // nanoTime values compare by difference
    }

    /**
     * Looked at every {@link NettyClientTransport#SILENCE_CHECK_MILLIS} (on one event loop): a
     * provider silent for four times its usual answer time (at least 50 ms) while calls wait on it
     * is pinged; one that answers nothing within the ping timeout (or four times its usual answer
     * time), not even the ping, is set aside and its calls in flight fail at once, as when a
     * connection is lost (CONNECTION_CLOSED for calls sent: they may have run; UNAVAILABLE for
     * calls never sent), instead of holding each caller to its deadline.
     */
    void watchSilence(long now, boolean trustClock) {
        long silent = silentNanos(now);
        if (silent == 0 || !trustClock || stillSending()) {
            // Nothing waits; this side was paused itself; or this side is still handing it bytes (a
            // large request on a slow link: no answer, nor a ping queued behind it, can come before
            // they arrive). Judged afresh next time.
            pingSentNanos = 0;
            return;
        }
        long sent = pingSentNanos;
        if (sent != 0 && heardNanos - sent >= 0) {
            pingSentNanos = 0; // the ping was answered
            sent = 0;
        }
        LatencyEstimate l = latency;
        if (l == null) {
            latency = l = new LatencyEstimate(); // answers are recorded from now on: the usual time is known next
        }
        long usual = l.answeredNanos();
        // Until its usual answer time is known (a fresh JVM's first calls compile and load classes),
        // a provider is given a second of silence and a second for the ping. Both stages also wait
        // for the requests waiting on it to arrive at 1 MB/s (transferNanos).
        long floor = usual < 0 ? TimeUnit.SECONDS.toNanos(1) : 0;
        if (sent == 0) {
            if (silent
                            > Math.max(
                                    Math.max(
                                            floor,
                                            TimeUnit.MILLISECONDS.toNanos(
                                                    NettyClientTransport.PING_AFTER_SILENCE_MILLIS)),
                                    4 * usual)
                    && silent > transferNanos()) {
                boolean pinged = false;
                for (Slot s : slots) {
                    ClientConnection c = s.current;
                    if (c != null && c.channel.isActive() && !c.pending.isEmpty()) {
                        c.writes.enqueue(RpcCodec.encodePing(c.channel.alloc()));
                        pinged = true;
                    }
                }
                if (pinged) {
                    pingSentNanos = now;
                }
            }
            return;
        }
        long waited = now - sent;
        if (waited > Math.max(Math.max(floor, settings.pingTimeout().toNanos()), 4 * usual)
                && waited > transferNanos()) {
            pingSentNanos = 0;
            String why = "answered nothing for " + TimeUnit.NANOSECONDS.toMillis(silent) + " ms, not even a ping in "
                    + TimeUnit.NANOSECONDS.toMillis(waited) + " ms, while " + active.get() + " calls waited";
            long pingAt = sent;
            for (Slot s : slots) {
                ClientConnection c = s.current;
                if (c != null && c.channel.isActive()) {
                    // Judged on the connection's event loop, after it has read what waits for it: a
                    // loop that was busy (a large response decoded) has not read the answer yet.
                    try {
                        c.channel
                                .eventLoop()
                                .schedule(() -> confirmUnresponsive(pingAt, why), 5, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException closing) {
                        // the client is closing
                    }
                    return;
                }
            }
        }
    }

    /**
     * Sets the provider aside and fails the calls on its connections, unless it was heard from
     * after {@code pingSentNanos}; on an event loop, once it has read what had arrived.
     */
    private void confirmUnresponsive(long pingSentNanos, String why) {
        if (heardNanos - pingSentNanos >= 0 || health.isEjected()) {
            return; // an answer came after all, or another look already set it aside
        }
        health.eject("as it " + why);
        for (Slot s : slots) {
            ClientConnection c = s.current;
            if (c != null) {
                c.unresponsive("was closed: the provider " + why);
            }
        }
    }

    /** The slowest link a silent provider's requests are allowed for: 1 MB/s. */
    static final long ASSUMED_LINK_BYTES_PER_SECOND = 1_000_000;

    /**
     * How long the requests waiting on this provider may take to arrive on the slowest link allowed
     * for: a large request on a slow link sits in the kernel's buffers, where this side cannot see
     * it, with the ping behind it. Looked at only once a provider is silent past its other limits.
     */
    private long transferNanos() {
        return bytesWaiting() * (1_000_000_000L / ASSUMED_LINK_BYTES_PER_SECOND);
    }

    /** Bytes of the requests waiting on this provider's connections. */
    private long bytesWaiting() {
        long bytes = 0;
        for (Slot s : slots) {
            ClientConnection c = s.current;
            if (c != null) {
                for (ClientCall call : c.pending.values()) {
                    bytes += call.frameBytes();
                }
            }
        }
        return bytes;
    }

    /**
     * Whether this side is still handing the provider bytes: a connection with calls waiting whose
     * unsent bytes changed since the last look (they drain while the provider reads them). Bytes
     * that stay where they were (a frozen provider's window is full) are no progress. The watch's loop only.
     */
    private boolean stillSending() {
        boolean sending = false;
        for (Slot s : slots) {
            ClientConnection c = s.current;
            if (c != null && !c.pending.isEmpty()) {
                ChannelOutboundBuffer out = c.channel.unsafe().outboundBuffer();
                long unsent = c.writes.queuedBytes()
                        + queuedRequestBytes.get()
                        + (out == null ? 0 : out.totalPendingWriteBytes());
                sending |= unsent > 0 && unsent != c.unsentAtLastLook;
                c.unsentAtLastLook = unsent;
            }
        }
        return sending;
    }

    EndpointPool(Endpoint endpoint, Bootstrap bootstrap, ClientTransport.Settings settings) {
        this.endpoint = endpoint;
        this.bootstrap = bootstrap;
        this.settings = settings;
        this.health = new ProviderHealth(
                endpoint,
                settings.outlierFailures(),
                settings.outlierBaseEjection().toNanos(),
                settings.outlierMaxEjection().toNanos());
        this.slots = new Slot[settings.connectionsPerEndpoint()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    int nextSlot() {
        return slots.length == 1 ? 0 : Math.floorMod(next.getAndIncrement(), slots.length);
    }

    /** The slot's connection if it is open, else {@code null}. */
    ClientConnection ready(int slot) {
        ClientConnection c = slots[slot].current;
        return c != null && c.isActive() ? c : null;
    }

    CompletableFuture<ClientConnection> connect(int slot) {
        return slots[slot].connect();
    }

    /** True while a recent connect failure's backoff runs: callers should prefer other providers. */
    Endpoint endpoint() {
        return endpoint;
    }

    boolean isSetAside() {
        long until = setAsideUntil;
        return until != 0 && until - System.nanoTime() > 0 || health.isEjected();
    }

    /**
     * The server refused {@code connection}: its slot waits out a reconnect backoff, as after a
     * failed connect, rather than connecting again at once for the next call.
     */
    void refused(ClientConnection connection, String why) {
        for (Slot s : slots) {
            if (s.current == connection) {
                s.backOff(new RpcException(RpcStatus.UNAVAILABLE, why));
            }
        }
    }

    void close() {
        for (Slot s : slots) {
            ClientConnection c = s.current;
            if (c != null) {
                c.channel.close();
            }
        }
    }

    int openConnections() {
        int n = 0;
        for (Slot s : slots) {
            ClientConnection c = s.current;
            if (c != null && c.isActive()) {
                n++;
            }
        }
        return n;
    }

    ProviderState state() {
        boolean connecting = false;
        for (Slot s : slots) {
            connecting |= s.connecting.get() != null;
        }
        long now = System.nanoTime();
        long until = setAsideUntil;
        long aside = Math.max(until == 0 ? 0 : until - now, health.ejectedNanosLeft(now));
        return new ProviderState(openConnections(), connecting, Math.max(0, aside), active.get());
    }

    List<ClientConnection> connections() {
        List<ClientConnection> all = new ArrayList<>();
        for (Slot s : slots) {
            if (s.current != null) {
                all.add(s.current);
            }
        }
        return all;
    }

    private final class Slot {
        volatile ClientConnection current;
        final AtomicReference<CompletableFuture<ClientConnection>> connecting = new AtomicReference<>();
        // Guarded by the connecting CAS: only the thread that won it writes these.
        volatile long nextAttemptNanos;
        volatile int failures;
        volatile Throwable lastFailure;

        /** A failed attempt: wait longer before the next, and set the provider aside meanwhile. */
        void backOff(Throwable cause) {
            int n = failures + 1;
            failures = n;
            lastFailure = cause;
            long backoff = Math.min(
                    settings.maxReconnectBackoff().toNanos(),
                    settings.reconnectBackoff().toNanos() << Math.min(n - 1, 20));
            nextAttemptNanos = System.nanoTime() + backoff;
            setAsideUntil = nextAttemptNanos;
        }

        CompletableFuture<ClientConnection> connect() {
            for (; ; ) {
                ClientConnection c = current;
                if (c != null && c.isActive()) {
                    return CompletableFuture.completedFuture(c);
                }
                CompletableFuture<ClientConnection> inProgress = connecting.get();
                if (inProgress != null) {
                    return inProgress;
                }
                long wait = nextAttemptNanos - System.nanoTime();
                if (failures > 0 && wait > 0) {
                    return CompletableFuture.failedFuture(new RpcException(
                            RpcStatus.UNAVAILABLE,
                            "cannot connect to "
                                    + endpoint + " (" + lastFailure + "); next attempt in "
                                    + TimeUnit.NANOSECONDS.toMillis(wait) + " ms; not sent"));
                }
                CompletableFuture<ClientConnection> mine = new CompletableFuture<>();
                if (!connecting.compareAndSet(null, mine)) {
                    continue;
                }
                c = current;
                if (c != null && c.isActive()) {
                    // Another attempt finished between our first look and the CAS: use it.
                    connecting.set(null);
                    return CompletableFuture.completedFuture(c);
                }
                // Started on the event loop the channel will live on, so the listener is attached
                // (or run) before that loop can read anything from the channel. Started from the
                // caller's thread, the connect could complete, and a server that refuses at once
                // could have its GOAWAY read and the channel closed, before the listener was even
                // attached; the pool then took a dead channel for open.
                EventLoop loop = bootstrap.config().group().next();
                Bootstrap b = bootstrap.clone(loop);
                b.attr(POOL, EndpointPool.this);
                try {
                    loop.execute(() -> {
                        try {
                            b.connect(endpoint.host(), endpoint.port())
                                    .addListener(f -> opened((ChannelFuture) f, mine));
                        } catch (Throwable t) {
                            failed(mine, t, "cannot connect to " + endpoint + ": " + t);
                        }
                    });
                } catch (RejectedExecutionException e) {
                    connecting.set(null);
                    mine.completeExceptionally(new RpcException(
                            RpcStatus.CANCELLED,
                            "cannot connect to " + endpoint + ": the client is closing; not sent",
                            e));
                }
                return mine;
            }
        }

        /** The connect ended; never throws, and always ends {@code mine} and this attempt. */
        private void opened(ChannelFuture f, CompletableFuture<ClientConnection> mine) {
            try {
                if (!f.isSuccess()) {
                    failed(mine, f.cause(), "cannot connect to " + endpoint + ": " + f.cause());
                } else {
                    Channel ch = f.channel();
                    SslHandler ssl = ch.pipeline().get(SslHandler.class);
                    if (ssl == null) {
                        connected(ch, mine);
                    } else {
                        // Connected only once the handshake is done: a call must not wait in a
                        // handshake that fails, and a failed one means nothing was sent.
                        ssl.handshakeFuture().addListener(h -> {
                            if (h.isSuccess()) {
                                connected(ch, mine);
                            } else {
                                ch.close();
                                failed(
                                        mine,
                                        h.cause(),
                                        "cannot connect to " + endpoint + ": TLS handshake failed: "
                                                + NettyTls.describe(h.cause()));
                            }
                        });
                    }
                }
            } catch (Throwable t) {
                f.channel().close();
                failed(mine, t, "cannot connect to " + endpoint + ": " + t);
            }
        }

        /** A failed attempt: back off, let the next caller try again, fail those who waited. */
        private void failed(CompletableFuture<ClientConnection> mine, Throwable cause, String message) {
            backOff(cause);
            connecting.set(null);
            mine.completeExceptionally(new RpcException(RpcStatus.UNAVAILABLE, message + "; not sent", cause));
        }

        private void connected(Channel ch, CompletableFuture<ClientConnection> mine) {
            if (retired) {
                // The pool was dropped (its provider left) while this connect or its handshake ran.
                ch.close();
                connecting.set(null);
                mine.completeExceptionally(new RpcException(
                        RpcStatus.UNAVAILABLE, endpoint + " left the provider list while connecting; not sent"));
                return;
            }
            ClientConnection conn = ch.attr(ClientConnection.KEY).get();
            if (!conn.isActive()) {
                // Refused, told GOAWAY or closed before the pool saw it open: a failed attempt, with
                // the server's reason when it gave one.
                ch.close();
                String why = conn.refusal != null ? conn.refusal : "the connection closed as it opened";
                failed(mine, new RpcException(RpcStatus.UNAVAILABLE, why), endpoint + " " + why);
                return;
            }
            failures = 0;
            setAsideUntil = 0;
            current = conn;
            connecting.set(null);
            mine.complete(conn);
        }
    }
}
