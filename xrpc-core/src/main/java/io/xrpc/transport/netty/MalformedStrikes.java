package io.xrpc.transport.netty;

import io.xrpc.common.RpcStatus;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection's malformed requests in a row (bytes that could not be read: a corrupt or
 * oversized body, a payload over the read limits): at {@value #MAX_IN_A_ROW} the connection is
 * closed with a GOAWAY, after the answer of the last one. A request read whole ends the row. Not
 * for a request that is well formed but not accepted (a class outside the allow-list): that is
 * configuration, not garbage. Any thread.
 */
final class MalformedStrikes {
    /** Requests in a row refused as malformed after which the connection is closed. */
    static final int MAX_IN_A_ROW = 10;

    private final ServerChannelHandler connection;
    private final AtomicInteger inARow = new AtomicInteger();

    MalformedStrikes(ServerChannelHandler connection) {
        this.connection = connection;
    }

    /** A request was refused as malformed, after its answer was queued. */
    void malformed(String why) {
        if (inARow.incrementAndGet() == MAX_IN_A_ROW) {
            connection.closeWithGoAway(
                    RpcStatus.SERIALIZATION_ERROR,
                    MAX_IN_A_ROW + " requests in a row were malformed, the last: " + why,
                    null);
        }
    }

    /** A request was read whole. */
    void wellFormed() {
        if (inARow.get() != 0) {
            inARow.set(0);
        }
    }
}
