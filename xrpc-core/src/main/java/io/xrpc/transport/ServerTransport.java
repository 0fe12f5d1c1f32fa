package io.xrpc.transport;

import io.xrpc.common.Endpoint;
import io.xrpc.config.TransportConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The network side of a server: it accepts connections, frames requests and hands them to a
 * {@link RequestHandler}, and writes the answers. {@code io.xrpc.transport.netty} has the one
 * implementation.
 */
public interface ServerTransport {

    /**
     * What a server transport is set up with, read from the server's one frozen configuration
     * (built by {@code RpcServer.Builder}, whose setters document each): no copy of it is made.
     */
    interface Settings {
        /** The address to bind. */
        String host();

        /** The port to bind; 0 for any free one. */
        int port();

        /** Event-loop threads. */
        int ioThreads();

        /** Call threads, and the calls that may wait for one. */
        int executorThreads();

        int executorQueue();

        /** Makes the call executor's threads, or {@code null} for the transport's own platform threads. */
        ThreadFactory callThreads();

        /** The application's executor for calls, or {@code null} for the transport's own pool. */
        default Executor executor() {
            return null;
        }

        /** How long one frame may take to arrive once begun; zero for no limit. */
        Duration frameTimeout();

        /** Connections open at once, and from one address (0: no own limit). */
        int maxConnections();

        int maxConnectionsPerAddress();

        /** Whether an authenticator decides calls: then connections must authenticate in time. */
        boolean authenticates();

        Duration authenticationTimeout();

        /** Refusals in a row that close a connection which never authenticated; 0 for none. */
        int maxAuthenticationFailures();

        /** Bytes of large requests held at once, over every connection. */
        long maxRequestMemory();

        /** The connection settings both sides share: frame limit, heartbeat, compression threshold, water marks, TLS. */
        TransportConfig transport();

        /** Whether each method's calls are admitted under an adaptive concurrency limit. */
        boolean adaptiveConcurrency();

        /** Whether the port also answers HTTP/1.1 and HTTP/2 calls with JSON bodies. */
        default boolean http() {
            return false;
        }

        /** Whether {@code GET /xrpc/console} serves the console page. */
        default boolean httpConsole() {
            return false;
        }

        /** Browser origins whose cross-origin HTTP calls are allowed (CORS); empty refuses every one. */
        default List<String> httpAllowedOrigins() {
            return List.of();
        }
    }

    /** Binds and returns the bound address (the real port when 0 was asked for). */
    Endpoint start() throws InterruptedException;

    /** The bound address, or {@code null} before {@link #start()}. */
    Endpoint endpoint();

    /** Calls accepted and not yet answered. */
    int inFlight();

    /** Open connections. */
    int connectionCount();

    /** Calls the server's authenticator refused since start. */
    default long authenticationRefusals() {
        return 0;
    }

    /**
     * Connections closed since start for carrying no admitted call: none within the
     * authentication timeout, too many refused in a row, or the oldest such at the connection cap.
     */
    default long authenticationClosures() {
        return 0;
    }

    /** Bytes of large requests held now, arriving or read and not yet run, over every connection. */
    default long requestMemoryBytes() {
        return 0;
    }

    /** Bytes of answers written and not yet sent, over every connection. */
    long pendingOutputBytes();

    /**
     * Waits until every connection open now has closed, or {@code max} has passed. A server that
     * left the registry waits on this: its XRpc consumers close their connections to it as their
     * lists drop it, so once all have closed no consumer routes here any more.
     *
     * @return whether they all closed
     */
    boolean awaitConnectionsClosed(Duration max) throws InterruptedException;

    /**
     * Stops accepting, tells clients to go away, lets calls in flight finish and clients close
     * for up to {@code grace}, then closes. Returns the calls still running when it gave up.
     */
    int close(Duration grace);
}
