package io.xrpc.common;

import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

/**
 * One call as interceptors see it, on the client before it is sent and on the server before the
 * implementation runs.
 *
 * <p>{@linkplain #attachments() Attachments} are string pairs that travel with the request: a
 * client interceptor puts an auth token or trace id there and a server interceptor reads it.
 * An invocation belongs to one call and is used by one thread at a time; it is not thread-safe.
 */
public final class Invocation {
    /** The attachment that carries a call's credentials (see {@code CallCredentials}, {@code Authenticator}). */
    public static final String CREDENTIALS = "authorization";

    private final ServiceKey serviceKey;
    private final MethodDescriptor method;
    private final Object[] arguments;
    private Map<String, String> attachments;
    private Endpoint remote;
    private final long deadlineNanos;
    private String serializer;
    private List<X509Certificate> peerCertificates = List.of();
    private int requestBytes = -1;
    /** On the client, for a method whose provider streams: who receives the messages. */
    private Flow.Subscriber<Object> responses;
    /** On the client, set once the provider accepted this stream call: from then on it is not tried elsewhere. */
    private volatile boolean streamAccepted;
    /** Null, the listeners (a Consumer) waiting for the answer, or the RpcStatus answered. */
    private volatile Object answer;

    private static final AtomicReferenceFieldUpdater<Invocation, Object> ANSWER =
            AtomicReferenceFieldUpdater.newUpdater(Invocation.class, Object.class, "answer");

    public Invocation(
            ServiceKey serviceKey,
            MethodDescriptor method,
            Object[] arguments,
            Map<String, String> attachments,
            Endpoint remote,
            long deadlineNanos) {
        this.serviceKey = serviceKey;
        this.method = method;
        this.arguments = arguments == null ? new Object[0] : arguments;
        this.attachments = attachments;
        this.remote = remote;
        this.deadlineNanos = deadlineNanos;
    }

    public ServiceKey serviceKey() {
        return serviceKey;
    }

    public MethodDescriptor method() {
        return method;
    }

    /** The call's arguments; an interceptor may replace elements before the call proceeds. */
    public Object[] arguments() {
        return arguments;
    }

    /** String pairs sent with the request. Never {@code null}; created on first use. */
    public Map<String, String> attachments() {
        if (attachments == null) {
            attachments = new HashMap<>(4);
        }
        return attachments;
    }

    /** The attachments, or {@code null} when none were ever added (no allocation). */
    public Map<String, String> attachmentsOrNull() {
        return attachments;
    }

    /**
     * On the server, the peer that sent the call. On the client, the provider the call goes to,
     * or {@code null} until one has been chosen.
     */
    public Endpoint remote() {
        return remote;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}); see {@link #remote()}. */
    void remote(Endpoint remote) {
        this.remote = remote;
    }

    /**
     * On the server, the certificate chain the client presented and the server verified (mutual
     * TLS), the client's own certificate first; empty without TLS or when the client presented
     * none. It says which trusted client this is, where {@link #remote()} says only where it
     * connected from. Empty on the client.
     */
    public List<X509Certificate> peerCertificates() {
        return peerCertificates;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}); see {@link #peerCertificates()}. */
    void peerCertificates(List<X509Certificate> chain) {
        this.peerCertificates = chain == null ? List.of() : chain;
    }

    /**
     * The name of the serializer the call travels in: on the client the reference's, set before
     * the interceptors run; on the server the request's. {@code null} for an invocation made by hand.
     */
    public String serializer() {
        return serializer;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}); see {@link #serializer()}. */
    void serializer(String name) {
        this.serializer = name;
    }

    /**
     * Bytes of the request's body as it travels (after compression), or -1 while unknown. The
     * server knows it before the interceptors run; a client once the call has been encoded, so a
     * client interceptor reads it after {@code next.proceed} returned (a call failed before it was
     * encoded leaves it -1). With failover it is the first attempt's.
     */
    public int requestBytes() {
        return requestBytes;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}); see {@link #requestBytes()}. */
    void requestBytes(int bytes) {
        this.requestBytes = bytes;
    }

    /**
     * On the client, for a method whose provider sends a stream: the subscriber its messages go to,
     * subscribed once the provider accepted the stream; {@code null} otherwise.
     */
    public Flow.Subscriber<Object> responses() {
        return responses;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}); see {@link #responses()}. */
    void responses(Flow.Subscriber<Object> subscriber) {
        this.responses = subscriber;
    }

    /** Set by the framework; whether the provider accepted this stream call (it is then not retried). */
    boolean streamAccepted() {
        return streamAccepted;
    }

    /** Set by the framework ({@code io.xrpc.internal.Invocations}). */
    void streamAccepted(boolean accepted) {
        this.streamAccepted = accepted;
    }

    /** Absolute deadline in {@link System#nanoTime()} units. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Milliseconds left until the deadline, 0 when it has passed. */
    public long remainingMillis() {
        long left = deadlineNanos - System.nanoTime();
        return left <= 0 ? 0 : Math.max(1, left / 1_000_000);
    }

    /**
     * On the server: runs {@code listener} once the call has been answered, with the status the
     * caller receives. That can differ from how the implementation's future ended: a result that
     * cannot be written is {@link RpcStatus#SERIALIZATION_ERROR}, a call whose deadline passed
     * first is {@link RpcStatus#DEADLINE_EXCEEDED}, one whose connection closed is
     * {@link RpcStatus#CONNECTION_CLOSED}. Metrics that count outcomes belong here. The listener
     * runs once, on whichever thread answered (or at once, when the call was answered before the
     * listener was added); it must not block. A listener that throws does not keep the others
     * from running.
     */
    @SuppressWarnings("unchecked")
    public void whenAnswered(Consumer<RpcStatus> listener) {
        while (true) {
            Object a = answer;
            if (a instanceof RpcStatus status) {
                listener.accept(status); // answered already (its deadline passed first, say)
                return;
            }
            Object next = a == null ? listener : both((Consumer<RpcStatus>) a, listener);
            if (ANSWER.compareAndSet(this, a, next)) {
                return;
            }
        }
    }

    /** Runs {@code first}, then {@code second} even when {@code first} threw (unlike {@code andThen}). */
    private static Consumer<RpcStatus> both(Consumer<RpcStatus> first, Consumer<RpcStatus> second) {
        return status -> {
            Throwable thrown = null;
            try {
                first.accept(status);
            } catch (Throwable t) {
                thrown = t;
            }
            try {
                second.accept(status);
            } catch (Throwable t) {
                if (thrown == null) {
                    thrown = t;
                } else {
                    thrown.addSuppressed(t);
                }
            }
            if (thrown instanceof RuntimeException r) {
                throw r;
            }
            if (thrown instanceof Error e) {
                throw e;
            }
            // Consumers throw nothing checked but by stealth; keep it as the cause.
            if (thrown != null) {
                throw new IllegalStateException("a listener of the answer threw", thrown);
            }
        };
    }

    /**
     * Called by the server transport (through {@code io.xrpc.internal.Invocations}) when it has
     * answered the call; see {@link #whenAnswered}.
     * Every listener runs even when one throws; the first throw is rethrown once the rest have run,
     * any later one suppressed in it.
     */
    @SuppressWarnings("unchecked")
    void answered(RpcStatus status) {
        Object a = ANSWER.getAndSet(this, status);
        if (a instanceof Consumer<?> listeners) {
            ((Consumer<RpcStatus>) listeners).accept(status);
        }
    }

    @Override
    public String toString() {
        return serviceKey + "#" + method.signature() + Arrays.toString(arguments);
    }
}
