package io.xrpc.transport.netty;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.common.RpcStatus;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection's standing with the server's authenticator, as grpc-java's
 * {@code KeepAliveEnforcer} is a connection's standing with its keep-alive policy: whether a call
 * of it was admitted, how many were refused in a row since, and the absolute deadline by which it
 * must carry an admitted call. Only a connection that never carried an admitted call is closed for
 * refusals or its deadline: one shared by several callers (a gateway's) keeps serving the others.
 * Present only when the server has an authenticator.
 */
final class ConnectionAuthentication {
    private final ServerChannelHandler connection;
    private final NettyServerTransport server;
    private final EventExecutor loop;
    /** Set once a call of this connection was admitted by the authenticator. */
    private volatile boolean authenticated;
    /** Calls refused by the authenticator since the last admitted one. */
    private final AtomicInteger refusedInARow = new AtomicInteger();

    private volatile ScheduledFuture<?> deadline;
    /**
     * Set when the deadline passed while calls of this connection were being decided: its later
     * requests are refused unread, so that calls the authenticator keeps busy cannot hold the
     * connection past its deadline. Event loop.
     */
    private boolean pastDeadline;
    /** Whether the frame arriving at the deadline was given its one frame timeout of grace. Event loop. */
    private boolean graceGiven;

    ConnectionAuthentication(ServerChannelHandler connection, NettyServerTransport server, EventExecutor loop) {
        this.connection = connection;
        this.server = server;
        this.loop = loop;
    }

    /** The connection opened (event loop): it waits to authenticate, by the deadline. */
    void start() {
        server.authentications().waiting(this);
        long timeout = server.settings().authenticationTimeout().toNanos();
        if (timeout > 0) {
            arm(timeout);
        }
    }

    /** The connection closed. */
    void closed() {
        server.authentications().authenticatedOrClosed(this);
    }

    boolean isAuthenticated() {
        return authenticated;
    }

    /** Whether the deadline passed and no new request of this connection is taken. Event loop. */
    boolean takesNoMoreRequests() {
        return pastDeadline && !authenticated;
    }

    /** A call of this connection passed the authenticator (any thread). */
    void admitted() {
        refusedInARow.set(0);
        if (!authenticated) {
            authenticated = true;
            server.authentications().authenticatedOrClosed(this);
            connection.authenticatedOnce();
            ScheduledFuture<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
        }
    }

    /** A call of this connection was refused by the authenticator, and answered (any thread). */
    void refused(String method, String reason) {
        int n = refusedInARow.incrementAndGet();
        server.authentications().refused(connection.peer, method, reason, n);
        int max = server.settings().maxAuthenticationFailures();
        if (max > 0 && n >= max && !authenticated) {
            // Its refusals were answered first, so the client does not take the GOAWAY to mean nothing ran.
            loop.execute(() -> close(n + " calls in a row were refused UNAUTHENTICATED"
                    + " (maxAuthenticationFailures), the last: " + reason));
        }
    }

    /**
     * Closes the connection if it has carried no authenticated call {@code nanos} from now. The
     * deadline is absolute: a call being decided is waited for (the authenticator answers it, and
     * three refusals close the connection), and a frame arriving earns one frame timeout of grace,
     * once, so a peer that always has a frame half-sent cannot stay.
     */
    private void arm(long nanos) {
        deadline = loop.schedule(
                () -> {
                    if (authenticated || connection.isClosing() || !connection.isActive()) {
                        return;
                    }
                    Duration frameTimeout = server.settings().frameTimeout();
                    String why = "it carried no authenticated call within "
                            + server.settings().authenticationTimeout().toMillis()
                            + " ms of opening (authenticationTimeout)";
                    if (connection.callBeingDecided()) {
                        // No new request of it is taken from now on; it closes once those being decided end.
                        pastDeadline = true;
                        arm(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
                    } else if (connection.isReceiving() && !graceGiven && frameTimeout.toNanos() > 0) {
                        graceGiven = true;
                        arm(frameTimeout.toNanos());
                    } else {
                        close(graceGiven ? why + ", nor by the end of the frame it was receiving then" : why);
                    }
                },
                nanos,
                TimeUnit.NANOSECONDS);
    }

    /**
     * Not authenticated, no call with the authenticator or waiting for admission, not closing. A
     * request still arriving does not protect it: a peer that always has a frame half-sent would
     * otherwise hold its slot for good (its request, never read whole, has not run). Read from
     * another event loop at the cap, where a stale answer costs at most a call that then ends
     * CONNECTION_CLOSED, never one reported unrun.
     */
    boolean evictable() {
        return !authenticated && !connection.callBeingDecided() && !connection.isClosing();
    }

    /**
     * Closes this connection with a GOAWAY naming {@code why}, unless it has authenticated
     * meanwhile, has a call being decided (the GOAWAY tells the client nothing ran, which must be
     * true), or is closing already (any thread). Returns whether it closes for this.
     */
    boolean closeUnauthenticated(String why) {
        return evictable() && close(why);
    }

    private boolean close(String why) {
        // Not a refusal (UNAVAILABLE): the client would set this provider aside, and it is the
        // connection, not the provider, that failed.
        return connection.closeWithGoAway(RpcStatus.UNAUTHENTICATED, why, server.authentications()::closed);
    }
}
