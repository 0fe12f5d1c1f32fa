package io.xrpc.internal;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * What only the framework sets on an {@link Invocation}: the provider chosen, the serializer, the
 * request's size, the peer's certificates, and that the call was answered. Those setters are
 * package-private in {@code io.xrpc.common}, so that an interceptor author's IDE offers the
 * invocation's reads and nothing the framework owns; the framework reaches them here, through
 * method handles made once (as fast as a direct call once compiled). {@code io.xrpc.common} knows
 * nothing of this class.
 */
public final class Invocations {
    private static final MethodHandle REMOTE;
    private static final MethodHandle SERIALIZER;
    private static final MethodHandle REQUEST_BYTES;
    private static final MethodHandle PEER_CERTIFICATES;
    private static final MethodHandle ANSWERED;
    private static final MethodHandle RESPONSES;
    private static final MethodHandle ACCEPT;
    private static final MethodHandle ACCEPTED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(Invocation.class, MethodHandles.lookup());
            REMOTE = l.findVirtual(Invocation.class, "remote", MethodType.methodType(void.class, Endpoint.class));
            SERIALIZER = l.findVirtual(Invocation.class, "serializer", MethodType.methodType(void.class, String.class));
            REQUEST_BYTES =
                    l.findVirtual(Invocation.class, "requestBytes", MethodType.methodType(void.class, int.class));
            PEER_CERTIFICATES =
                    l.findVirtual(Invocation.class, "peerCertificates", MethodType.methodType(void.class, List.class));
            ANSWERED = l.findVirtual(Invocation.class, "answered", MethodType.methodType(void.class, RpcStatus.class));
            RESPONSES = l.findVirtual(
                    Invocation.class, "responses", MethodType.methodType(void.class, Flow.Subscriber.class));
            ACCEPT =
                    l.findVirtual(Invocation.class, "streamAccepted", MethodType.methodType(void.class, boolean.class));
            ACCEPTED = l.findVirtual(Invocation.class, "streamAccepted", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Invocations() {}

    /** On the client, the provider the call goes to. */
    public static void remote(Invocation inv, Endpoint remote) {
        try {
            REMOTE.invokeExact(inv, remote);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The serializer the call travels in. */
    public static void serializer(Invocation inv, String name) {
        try {
            SERIALIZER.invokeExact(inv, name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Bytes of the request's body as it travels. */
    public static void requestBytes(Invocation inv, int bytes) {
        try {
            REQUEST_BYTES.invokeExact(inv, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** On the server, the chain the client presented and the server verified. */
    public static void peerCertificates(Invocation inv, List<X509Certificate> chain) {
        try {
            PEER_CERTIFICATES.invokeExact(inv, chain);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * On the server, the call was answered with {@code status}: its listeners run (see
     * {@link Invocation#whenAnswered}); the first one's throw is rethrown once all have run.
     */
    public static void answered(Invocation inv, RpcStatus status) {
        try {
            ANSWERED.invokeExact(inv, status);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** On the client, who receives the messages of a stream the provider sends. */
    public static void responses(Invocation inv, Flow.Subscriber<Object> subscriber) {
        try {
            RESPONSES.invokeExact(inv, subscriber);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** On the client, the provider accepted this stream call: it is not tried elsewhere from now on. */
    public static void streamAccepted(Invocation inv) {
        try {
            ACCEPT.invokeExact(inv, true);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Whether the provider accepted this stream call. */
    public static boolean isStreamAccepted(Invocation inv) {
        try {
            return (boolean) ACCEPTED.invokeExact(inv);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
