package io.xrpc.transport;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * One routed request as the server's policy sees it ({@link RequestHandler#handle}): what it
 * asks for, its arguments still unread, and the ways to answer it. A transport implements it;
 * it answers at most once (later answers are dropped), and encoding, writing and backpressure are
 * its business.
 */
public interface ServerExchange {

    /** The exported method the request names. */
    Routes.Route route();

    /** The request's attachments; empty, never {@code null}. */
    Map<String, String> attachments();

    /** Where the request came from. */
    Endpoint peer();

    /**
     * The certificate chain the client presented and the TLS handshake verified, its own first;
     * empty without TLS or when it presented none.
     */
    default List<X509Certificate> peerCertificates() {
        return List.of();
    }

    /** This server's address, for messages. */
    String server();

    /** The request's deadline ({@link System#nanoTime()}), less the time it waited unread. */
    long deadlineNanos();

    /** The serializer the request uses, which a declared exception's carried form is written with too. */
    Serializer serializer();

    /** Bytes of the request's body as received (compressed, when it was); -1 when unknown. */
    default int requestBytes() {
        return -1;
    }

    /**
     * Reads the arguments with the request's serializer, stopping at the deadline, and releases
     * the body whatever happens; throws what the serializer throws for a bad payload.
     */
    Object[] readArguments() throws IOException;

    /** The server's authenticator admitted this call: its connection has proved who it is. */
    default void authenticated() {}

    /**
     * The call passed the authenticator (or there is none): returns why the transport refuses it
     * now (an adaptive concurrency limit that has no room), or null to go on. A limit is taken
     * here rather than as the request arrives, so that a caller without credentials neither holds
     * a slot nor feeds the limit a latency sample.
     */
    default String admit() {
        return null;
    }

    /** The server's authenticator refused this call, for {@code reason}; after it was answered. */
    default void authenticationRefused(String reason) {}

    /**
     * The request's bytes could not be read (a corrupt or oversized body, a payload over the read
     * limits), after it was answered: a connection that keeps sending such requests is closed.
     * Not for a request that is well formed but not accepted (a class outside the allow-list,
     * arguments of the wrong types): those are configuration, not garbage.
     */
    default void malformed(String why) {}

    /** Releases the body unread. */
    void discardArguments();

    /** Runs {@code task} after {@code delayNanos} on the request's connection; returns what cancels it. */
    Runnable schedule(Runnable task, long delayNanos);

    /**
     * The invocation whose {@link Invocation#whenAnswered listeners} hear the answer. A transport
     * must call {@link Invocation#answered} on it exactly once, however the call ends (answered,
     * refused, deadline, connection closed): the server's per-service counts and the observations
     * end there.
     */
    void invocation(Invocation invocation);

    /**
     * Whether the call was answered already (a stream its caller ended while it was set up): then
     * the implementation does not run.
     */
    default boolean answered() {
        return false;
    }

    /**
     * For a stream method, once the call passed its checks: tells the caller the stream is accepted,
     * and returns the messages it sends (decoded as {@code MethodDescriptor#streamType()}, under
     * credit), or {@code null} when it sends none. From then on the call is answered with the
     * stream's end. {@code null} for a method that does not stream.
     */
    default Flow.Publisher<Object> acceptStream() {
        return null;
    }

    /**
     * For a method whose provider streams, after {@link #acceptStream}: sends what {@code messages}
     * publishes under the caller's credit. The future completes when the publisher ends (failed
     * with its failure); the policy then answers ({@link #answer answer(null)}, or a failure).
     */
    default CompletableFuture<Void> send(Flow.Publisher<?> messages) {
        throw new UnsupportedOperationException("this transport does not stream");
    }

    /** Answers with a result, encoded when the connection has room; one that cannot be written is SERIALIZATION_ERROR. */
    void answer(Object value);

    /** Answers with a failure of XRpc's own. */
    void answerError(RpcStatus status, String message);

    /**
     * Answers that the implementation threw: its class, message and printed stack, and for a
     * declared exception its carried form ({@link io.xrpc.serialize.RemoteExceptions}), or null.
     */
    void answerApplicationError(String className, String message, String stackTrace, ExceptionValue carried);
}
