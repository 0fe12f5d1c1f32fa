package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.xrpc.common.Endpoint;
import io.xrpc.internal.LogLimiter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's connections that have not carried an admitted call yet (with an authenticator only),
 * each with the order it opened in: at the connection cap the oldest idle one makes room, so that
 * peers without credentials cannot hold every slot. Also the server's counts of refused calls and
 * of connections closed for authentication, and its rate-limited log of refusals. Thread-safe.
 */
final class Authentications {
    private static final Logger log = LoggerFactory.getLogger(NettyServerTransport.class);

    /** Added on the event loop of each, removed when one authenticates, closes or is evicted. */
    private final Map<ConnectionAuthentication, Long> waiting = new ConcurrentHashMap<>();

    private final AtomicLong opened = new AtomicLong();
    private final LongAdder refusals = new LongAdder();
    private final LongAdder closures = new LongAdder();
    private final LogLimiter refusalLog = new LogLimiter(log, "refused authentications");

    void waiting(ConnectionAuthentication connection) {
        waiting.put(connection, opened.incrementAndGet());
    }

    void authenticatedOrClosed(ConnectionAuthentication connection) {
        waiting.remove(connection);
    }

    /**
     * At the connection cap of {@code max}: closes the oldest connection that has not authenticated
     * and has no call being decided, to make room for {@code newcomer}. One pass, only at the cap.
     * Returns whether one was closed.
     */
    boolean evictOldest(Channel newcomer, int max) {
        ConnectionAuthentication oldest = null;
        long oldestSeq = Long.MAX_VALUE;
        for (Map.Entry<ConnectionAuthentication, Long> e : waiting.entrySet()) {
            if (e.getValue() < oldestSeq && e.getKey().evictable()) {
                oldest = e.getKey();
                oldestSeq = e.getValue();
            }
        }
        if (oldest != null
                && oldest.closeUnauthenticated("it had carried no authenticated call when " + newcomer.remoteAddress()
                        + " needed its slot at the connection limit (" + max + ")")) {
            waiting.remove(oldest);
            return true;
        }
        return false;
    }

    /** A call's credentials were refused; the count and a limited log line. */
    void refused(Endpoint peer, String method, String reason, int inARow) {
        refusals.increment();
        refusalLog.warn("Refused {} from {}: {} ({} in a row on its connection)", method, peer, reason, inARow);
    }

    void closed() {
        closures.increment();
    }

    long refusals() {
        return refusals.sum();
    }

    long closures() {
        return closures.sum();
    }
}
