package io.xrpc.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.internal.Invocations;
import io.xrpc.internal.Texts;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.CallTarget;
import io.xrpc.transport.ClientTransport;
import io.xrpc.transport.ProviderState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Netty side of a client: a small pool of multiplexed connections per provider address,
 * opened on first use, a request id counter, and one timer wheel for every call's deadline.
 * Created and driven by {@code RpcClient}, through the {@link ClientTransport} contract.
 */
public final class NettyClientTransport implements ClientTransport {

    /** Whether a cancelled call that was sent is cancelled on its provider too (a CANCEL frame). */
    boolean cancelsOnProvider() {
        return settings.cancelOnProvider();
    }

    private final ClientTransport.Settings settings;
    /** The client's TLS, or null for plaintext. */
    private final SslContext tls;

    private final CompressorRegistry compressors;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final HashedWheelTimer timer;
    private final ConcurrentHashMap<Endpoint, EndpointPool> pools = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger pendingCalls = new AtomicInteger();
    private volatile boolean closed;

    public NettyClientTransport(ClientTransport.Settings settings, CompressorRegistry compressors) {
        this.settings = settings;
        this.tls = settings.transport().tls() == null
                ? null
                : NettyTls.clientContext(settings.transport().tls());
        this.compressors = compressors;
        this.group = NettyTransport.newEventLoopGroup(settings.ioThreads(), "xrpc-client-io", true);
        this.timer = new HashedWheelTimer(
                new DefaultThreadFactory("xrpc-client-deadlines", true),
                10,
                TimeUnit.MILLISECONDS,
                512,
                true,
                settings.maxPendingCalls() + 1024L);
        // On an event loop rather than the deadline wheel: its tasks are not bounded by the calls pending.
        this.silenceWatch = settings.outlierFailures() > 0
                        && settings.pingTimeout().toNanos() > 0
                ? group.next()
                        .scheduleAtFixedRate(
                                new SilenceWatch(), SILENCE_CHECK_MILLIS, SILENCE_CHECK_MILLIS, TimeUnit.MILLISECONDS)
                : null;
        long hb = settings.transport().heartbeatInterval().toMillis();
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(NettyTransport.channelType())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        settings.connectTimeout().toMillis())
                .option(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(
                                settings.transport().writeBufferLowWaterMark(),
                                settings.transport().writeBufferHighWaterMark()))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        EndpointPool pool = ch.attr(EndpointPool.POOL).get();
                        if (tls != null) {
                            // The handshake is part of connecting: EndpointPool waits for it.
                            SslHandler ssl = tls.newHandler(
                                    ch.alloc(),
                                    pool.endpoint().host(),
                                    pool.endpoint().port());
                            ssl.setHandshakeTimeoutMillis(
                                    settings.connectTimeout().toMillis());
                            ch.pipeline().addLast("tls", ssl);
                        }
                        ch.pipeline()
                                .addLast("idle", HeartbeatHandler.idleHandler(hb))
                                .addLast(
                                        "frames",
                                        new FrameDecoder(settings.transport().maxFrameLength()))
                                .addLast("heartbeat", HeartbeatHandler.INSTANCE)
                                .addLast(
                                        "responses",
                                        new ClientChannelHandler(
                                                new ClientConnection(pool, ch), NettyClientTransport.this));
                    }
                });
    }

    /**
     * Sends one call and returns the future of its result. Never throws: every failure, including
     * one before sending, completes the future exceptionally with an {@link RpcException}.
     *
     * @param invocation   the call; its arguments, attachments and deadline are used
     * @param target       the method's prepared routing strings
     * @param endpoint     the provider
     * @param timeoutMillis the call's whole timeout, named in its deadline error
     */
    @Override
    public CompletableFuture<Object> send(
            Invocation invocation,
            CallTarget target,
            Endpoint endpoint,
            Serializer serializer,
            Compressor compressor,
            long timeoutMillis) {
        if (closed) {
            return CompletableFuture.failedFuture(
                    new RpcException(RpcStatus.CANCELLED, target.description() + ": the client is closed"));
        }
        long now = System.nanoTime();
        long remainingNanos = invocation.deadlineNanos() - now;
        if (remainingNanos <= 0) {
            return CompletableFuture.failedFuture(new RpcException(
                    RpcStatus.DEADLINE_EXCEEDED,
                    target.description() + " to " + endpoint + " timed out after " + timeoutMillis
                            + " ms before it was sent"));
        }
        if (pendingCalls.incrementAndGet() > settings.maxPendingCalls()) {
            pendingCalls.decrementAndGet();
            return CompletableFuture.failedFuture(new RpcException(
                    RpcStatus.RESOURCE_EXHAUSTED,
                    target.description() + ": " + settings.maxPendingCalls()
                            + " calls are already pending on this client (the limit); not sent"));
        }
        long id = ids.incrementAndGet();
        boolean stream = invocation.method().isStream();
        ByteBuf frame;
        try {
            int budget = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos));
            // The sender's own limit: an oversize frame would make the receiver close a shared connection.
            frame = RpcCodec.encodeRequest(
                    ByteBufAllocator.DEFAULT,
                    id,
                    budget,
                    RpcCodec.clockMillis(now),
                    serializer,
                    compressor,
                    settings.transport().compressThreshold(),
                    settings.transport().maxFrameLength(),
                    target.serviceKey(),
                    target.signature(),
                    stream ? streamAttachments(invocation) : invocation.attachmentsOrNull(),
                    stream ? invocation.method().wireArguments(invocation.arguments()) : invocation.arguments());
        } catch (Exception | StackOverflowError e) {
            callEnded();
            return CompletableFuture.failedFuture(new RpcException(
                    RpcStatus.SERIALIZATION_ERROR,
                    target.description() + ": cannot write the arguments with " + serializer.name() + ": " + e
                            + "; not sent",
                    e));
        }
        // As the server will count it: the body after the header and the clock stamp every request carries.
        Invocations.requestBytes(
                invocation,
                frame.readableBytes() - ProtocolConstants.HEADER_LENGTH - ProtocolConstants.TIMESTAMP_LENGTH);
        ClientCall call = new ClientCall(
                this, id, target, endpoint, timeoutMillis, serializer, invocation.deadlineNanos(), now, frame);
        if (stream) {
            call.stream = new ClientStream(call, invocation, this, compressor);
        }
        EndpointPool pool;
        for (; ; ) {
            pool = pools.computeIfAbsent(endpoint, ep -> new EndpointPool(ep, bootstrap, settings));
            // Counted before anything can end the call, so that end() always uncounts it.
            if (pool.active.get() == 0) {
                pool.busySinceNanos = now; // before the count: its silence counts from here, not from its last answer
            }
            pool.active.incrementAndGet();
            if (!pool.retired) {
                break;
            }
            pool.active.decrementAndGet(); // retainOnly() is removing it: take the next one
            Thread.onSpinWait();
        }
        call.pool = pool; // nothing can end the call before its bytes count, so its end uncounts them
        if (pool.queuedRequestBytes.addAndGet(call.frameBytes()) > settings.maxPendingRequestBytes()) {
            call.fail(new RpcException(
                    RpcStatus.RESOURCE_EXHAUSTED,
                    target.description() + ": "
                            + settings.maxPendingRequestBytes() + " bytes of requests already wait to be written to "
                            + endpoint + " (the limit, maxPendingRequestBytes); not sent"));
            return call.future;
        }
        try {
            call.timeout = timer.newTimeout(call, remainingNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            // The timer refuses when stopped (client closing) or past its own pending limit.
            call.fail(new RpcException(RpcStatus.CANCELLED, target.description() + ": not sent: " + e.getMessage(), e));
            return call.future;
        }
        int slot = pool.nextSlot();
        ClientConnection c = pool.ready(slot);
        if (c != null) {
            c.send(call);
        } else {
            pool.connect(slot).whenComplete((conn, err) -> {
                if (err != null) {
                    call.fail(err);
                } else {
                    conn.send(call);
                }
            });
        }
        return call.future;
    }

    /** A stream call's attachments: the invocation's and the one that says the caller takes a stream. */
    private static Map<String, String> streamAttachments(Invocation invocation) {
        Map<String, String> own = invocation.attachmentsOrNull();
        Map<String, String> all = new HashMap<>(own == null ? 2 : own.size() * 2 + 2);
        if (own != null) {
            all.putAll(own);
        }
        all.put(ProtocolConstants.STREAM_ATTACHMENT, "1");
        return all;
    }

    /** Bodies this client sends smaller than this go uncompressed. */
    int compressThreshold() {
        return settings.transport().compressThreshold();
    }

    /** Calls to {@code endpoint} in flight from this client. */
    @Override
    public int activeCalls(Endpoint endpoint) {
        EndpointPool p = pools.get(endpoint);
        return p == null ? 0 : p.active.get();
    }

    /** The latency estimate of {@code endpoint} ({@link LatencyEstimate}), 0 before its first answer. */
    @Override
    public long latencyNanos(Endpoint endpoint) {
        EndpointPool p = pools.get(endpoint);
        if (p == null) {
            return 0;
        }
        LatencyEstimate l = p.latency;
        if (l == null) {
            p.latency = new LatencyEstimate(); // asked for the first time: answers are recorded from now on
            return 0;
        }
        long now = System.nanoTime();
        // A provider silent while calls wait on it is at least that slow: a frozen one's estimate
        // would otherwise stay at its last good latency while its calls pile up unanswered.
        return Math.max(l.estimate(now, p.active.get()), p.silentNanos(now));
    }

    /** How often providers with calls in flight are looked at for silence ({@link EndpointPool#watchSilence}). */
    static final long SILENCE_CHECK_MILLIS = 25;
    /** Silence with calls waiting (or four times the provider's usual answer time) after which it is pinged. */
    static final long PING_AFTER_SILENCE_MILLIS = 50;

    /** Runs {@link EndpointPool#watchSilence} for every provider, every {@link #SILENCE_CHECK_MILLIS}. */
    private final class SilenceWatch implements Runnable {
        private long last = System.nanoTime();

        @Override
        public void run() {
            long now = System.nanoTime();
            // Late by far (this JVM paused, or this loop was busy): the silence may be ours; judge next time.
            boolean trustClock = now - last < 4 * TimeUnit.MILLISECONDS.toNanos(SILENCE_CHECK_MILLIS);
            last = now;
            for (EndpointPool p : pools.values()) {
                p.watchSilence(now, trustClock);
            }
        }
    }

    /** The periodic {@link SilenceWatch}, or null when off. */
    private final ScheduledFuture<?> silenceWatch;

    @Override
    public ProviderState providerState(Endpoint endpoint) {
        EndpointPool p = pools.get(endpoint);
        return p == null ? ProviderState.UNUSED : p.state();
    }

    /** Whether connecting to {@code endpoint} failed recently and its reconnect backoff still runs. */
    @Override
    public boolean isSetAside(Endpoint endpoint) {
        EndpointPool p = pools.get(endpoint);
        return p != null && p.isSetAside();
    }

    /**
     * Closes the connections of providers not in {@code keep} that have no call in flight, so
     * that providers which left the registry do not hold sockets and memory forever.
     */
    @Override
    public boolean retainOnly(Set<Endpoint> keep) {
        boolean busy = false;
        for (Map.Entry<Endpoint, EndpointPool> e : pools.entrySet()) {
            EndpointPool p = e.getValue();
            if (keep.contains(e.getKey())) {
                continue;
            }
            if (p.active.get() != 0) {
                busy = true;
                continue;
            }
            // Retire first, then look again: a sender that counted itself before seeing the flag
            // keeps the pool alive; one that sees it goes and makes a new pool.
            p.retired = true;
            if (p.active.get() == 0) {
                pools.remove(e.getKey(), p);
                p.close();
            } else {
                p.retired = false;
                busy = true;
            }
        }
        return busy;
    }

    /** The event loop of {@code connection}, or any of this client's when there is none yet. */
    Executor eventLoopFor(ClientConnection connection) {
        return connection != null ? connection.channel.eventLoop() : group.next();
    }

    void callEnded() {
        pendingCalls.decrementAndGet();
    }

    /** Bytes of encoded requests waiting to be handed to a socket, over all providers. */
    @Override
    public long queuedRequestBytes() {
        long n = 0;
        for (EndpointPool p : pools.values()) {
            n += p.queuedRequestBytes.get();
        }
        return n;
    }

    /** The server refused {@code connection}: its calls go elsewhere, and so do new ones for a while. */
    void refused(ClientConnection connection, String why) {
        String reason = Texts.cut(why, 500);
        connection.refused(reason);
        connection.pool.refused(connection, reason);
        connection.health.eject("because it refused the connection: " + reason);
    }

    CompressorRegistry compressors() {
        return compressors;
    }

    int maxFrameLength() {
        return settings.transport().maxFrameLength();
    }

    /** Calls sent or being sent and not yet ended, over all connections. */
    @Override
    public int pendingCalls() {
        return pendingCalls.get();
    }

    /** Open connections over all providers. */
    @Override
    public int openConnections() {
        int n = 0;
        for (EndpointPool p : pools.values()) {
            n += p.openConnections();
        }
        return n;
    }

    /** Fails every pending call with CANCELLED, closes every connection and stops the threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (silenceWatch != null) {
            silenceWatch.cancel(false);
        }
        List<ClientConnection> all = new ArrayList<>();
        for (EndpointPool p : pools.values()) {
            all.addAll(p.connections());
        }
        for (ClientConnection c : all) {
            for (ClientCall call : c.pending.values()) {
                call.fail(new RpcException(
                        RpcStatus.CANCELLED,
                        call.description + " to " + call.endpoint
                                + ": the client was closed before the response came"));
            }
            c.channel.close();
        }
        // Calls still connecting are in no connection's map yet; the timer holds every call.
        for (Timeout t : timer.stop()) {
            if (t.task() instanceof ClientCall call) {
                call.fail(new RpcException(
                        RpcStatus.CANCELLED,
                        call.description + " to " + call.endpoint
                                + ": the client was closed before the response came"));
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @Override
    public boolean isTransportThread() {
        return NettyTransport.isIoThread();
    }
}
