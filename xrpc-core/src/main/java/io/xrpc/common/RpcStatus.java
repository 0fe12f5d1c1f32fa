package io.xrpc.common;

/**
 * Outcome of a call, carried in the status byte of every response header.
 *
 * <p>Each code says whether a retry on another provider is safe: {@link #isSafeToRetry()} is true
 * only where the request certainly did not run, which is what makes failover safe.
 */
public enum RpcStatus {
    /** The call ran and its result (possibly {@code null}) is in the body. */
    OK(0, false),
    /** The service implementation threw; the body names the exception. Not retried: it ran. */
    APPLICATION_ERROR(1, false),
    /** The server's business executor was full; the request was not run. Safe to retry. */
    SERVER_BUSY(2, true),
    /**
     * The call's deadline passed. Answered by the server, it means the call did not run: its
     * budget ran out before a thread took it, while its arguments were read, or while it waited in
     * a socket buffer (the server compares the client's clock stamps on one connection to tell).
     * Raised by the client's own timer, it says nothing about the provider: the request may have
     * run, may be running, or may still run later if the provider was frozen with it unread and
     * its wait could not be told. Retried only for idempotent methods.
     */
    DEADLINE_EXCEEDED(3, false),
    /**
     * No service is exported under the requested key (or it is being unexported). Not run, so
     * another provider may be tried.
     */
    SERVICE_NOT_FOUND(4, true),
    /**
     * The exported interface has no method with the requested signature (an older provider during
     * a rolling upgrade, say). Not run, so another provider may be tried.
     */
    METHOD_NOT_FOUND(5, true),
    /**
     * The request or response body could not be decoded or encoded: unknown serializer or
     * compressor, a class outside the allow-list, corrupt or oversize data.
     */
    SERIALIZATION_ERROR(6, false),
    /**
     * The request never reached a provider or the provider refused it before running it:
     * connection refused or closed before sending, server shutting down. Safe to retry.
     */
    UNAVAILABLE(7, true),
    /**
     * The call was given up on the client: the client was closed (a request already sent may or
     * may not have run), the caller was interrupted, or an interceptor refused it.
     */
    CANCELLED(8, false),
    /** A failure inside XRpc itself; the message says what happened. */
    INTERNAL(9, false),
    /**
     * The connection closed after the request was sent and before its response came: the request
     * may or may not have run. Retried only for idempotent methods.
     */
    CONNECTION_CLOSED(10, false),
    /** The client already had its limit of calls pending; the request was not sent. Safe to retry later. */
    RESOURCE_EXHAUSTED(11, true),
    /**
     * The server's authenticator refused the call's credentials, before reading its arguments;
     * the message says why. Not run, but not retried either: another provider would refuse the
     * same credentials.
     */
    UNAUTHENTICATED(12, false);

    private static final RpcStatus[] BY_CODE = new RpcStatus[256];

    static {
        for (RpcStatus s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final byte code;
    private final boolean safeToRetry;

    RpcStatus(int code, boolean safeToRetry) {
        this.code = (byte) code;
        this.safeToRetry = safeToRetry;
    }

    /** The byte written in the header. */
    public byte code() {
        return code;
    }

    /** True when the request certainly was not run, so sending it elsewhere cannot run it twice. */
    public boolean isSafeToRetry() {
        return safeToRetry;
    }

    /** The status for a header byte, or {@link #INTERNAL} for a code this version does not know. */
    public static RpcStatus fromCode(byte code) {
        RpcStatus s = BY_CODE[code & 0xFF];
        return s == null ? INTERNAL : s;
    }
}
