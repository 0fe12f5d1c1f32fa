package io.xrpc.common;

import java.util.Objects;

/**
 * The one exception XRpc throws to callers. Its {@link #status()} says what went wrong and whether
 * retrying elsewhere is safe.
 *
 * <p>When the remote implementation threw ({@link RpcStatus#APPLICATION_ERROR}), its class
 * name, message and stack trace travel as text and are available from {@link #remoteClassName()},
 * {@link #remoteMessage()} and {@link #remoteStackTrace()}. An exception the interface method
 * declares in its {@code throws} clause comes back as itself instead (see
 * {@link #remoteException()}): the proxy throws it, so {@code catch (OutOfStockException e)}
 * works. Nothing else from a peer is ever constructed as an exception.
 */
public class RpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final RpcStatus status;
    private final String remoteClassName;
    private final String remoteMessage;
    private final String remoteStackTrace;
    private final Throwable remoteException;

    public RpcException(RpcStatus status, String message) {
        this(status, message, null);
    }

    public RpcException(RpcStatus status, String message, Throwable cause) {
        super(message, cause);
        this.status = Objects.requireNonNull(status, "status");
        this.remoteClassName = null;
        this.remoteMessage = null;
        this.remoteStackTrace = null;
        this.remoteException = null;
    }

    /** An exception thrown by a remote implementation, rebuilt from its textual form. */
    public RpcException(String message, String remoteClassName, String remoteMessage, String remoteStackTrace) {
        super(message); // no cause yet: initCause may still set one
        this.status = RpcStatus.APPLICATION_ERROR;
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
        this.remoteStackTrace = remoteStackTrace;
        this.remoteException = null;
    }

    /**
     * An exception thrown by a remote implementation and declared by the interface method, rebuilt
     * as itself ({@code remoteException}, also the cause): a proxy throws that in place of this, so
     * only interceptors and cluster strategies see this wrapper.
     */
    public RpcException(
            String message,
            String remoteClassName,
            String remoteMessage,
            String remoteStackTrace,
            Throwable remoteException) {
        super(message, remoteException);
        this.status = RpcStatus.APPLICATION_ERROR;
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
        this.remoteStackTrace = remoteStackTrace;
        this.remoteException = remoteException;
    }

    public RpcStatus status() {
        return status;
    }

    /** The class name of the exception the remote implementation threw, or {@code null}. */
    public String remoteClassName() {
        return remoteClassName;
    }

    /** The remote exception's message, or {@code null}. */
    public String remoteMessage() {
        return remoteMessage;
    }

    /** The remote exception's stack trace as printed by {@link Throwable#printStackTrace()}, or {@code null}. */
    public String remoteStackTrace() {
        return remoteStackTrace;
    }

    /**
     * The remote exception rebuilt as its own class, when the interface method declares it and
     * the caller's allow-list accepts it; otherwise {@code null}.
     */
    public Throwable remoteException() {
        return remoteException;
    }

    /** True when the request certainly did not run (see {@link RpcStatus#isSafeToRetry()}). */
    public boolean isSafeToRetry() {
        return status.isSafeToRetry();
    }
}
