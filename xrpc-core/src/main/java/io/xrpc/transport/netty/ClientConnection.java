package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/** One multiplexed connection to a provider and the calls waiting on it, by request id. */
final class ClientConnection {
    /** The connection of a channel, set as the channel is initialised. */
    static final AttributeKey<ClientConnection> KEY = AttributeKey.valueOf("xrpc.connection");

    final Endpoint endpoint;
    final Channel channel;
    final WriteQueue writes;
    final ConcurrentHashMap<Long, ClientCall> pending = new ConcurrentHashMap<>();
    /** Set when the server said GOAWAY: no new calls here; closed once the pending ones end. */
    volatile boolean goingAway;
    /** Why the server refused this connection, or null. */
    volatile String refusal;
    /**
     * Set once a response came on this connection: from then on a refusal cannot vouch that
     * nothing ran. Event loop only.
     */
    boolean answeredAny;

    /** Bytes not yet handed to the socket at the silence watch's last look (the watch's loop only). */
    long unsentAtLastLook;

    /** The provider's health record, told of a connection lost under calls. */
    final ProviderHealth health;
    /** The pool it belongs to. */
    final EndpointPool pool;

    ClientConnection(EndpointPool pool, Channel channel) {
        this.pool = pool;
        this.endpoint = pool.endpoint();
        this.channel = channel;
        this.health = pool.health;
        this.writes = new WriteQueue(channel);
        channel.attr(KEY).set(this);
    }

    /** Open and not going away: fit for new calls. */
    boolean isActive() {
        return !goingAway && channel.isActive();
    }

    /** The server is shutting down: stop using this connection, close it when it has drained. */
    void goAway() {
        goingAway = true;
        closeIfDrained();
    }

    void closeIfDrained() {
        if (goingAway && pending.isEmpty()) {
            channel.close();
        }
    }

    /** Registers the call and queues its frame. */
    void send(ClientCall call) {
        call.connection = this;
        pending.put(call.id, call);
        String refused = refusal;
        if (refused != null) {
            // Refused while we were registering it, too late to be among the calls refused()
            // failed: it would otherwise fail on the closed channel without the server's reason.
            call.fail(refusedCall(call, refused));
        }
        if (call.isDone()) {
            // It ended (deadline, refusal) while we were registering it: undo, nothing else will.
            pending.remove(call.id, call);
            return;
        }
        writes.enqueue(call);
    }

    /**
     * The server refused the connection before reading anything from it: every call on it fails
     * UNAVAILABLE, safe to send elsewhere, and the connection closes.
     */
    void refused(String why) {
        refusal = why;
        goingAway = true;
        for (ClientCall c : pending.values()) {
            c.fail(refusedCall(c, why));
        }
        channel.close();
    }

    private RpcException refusedCall(ClientCall c, String why) {
        return new RpcException(RpcStatus.UNAVAILABLE, c.description + ": " + endpoint + " " + why + "; not run");
    }

    /**
     * The provider answered no ping ({@link EndpointPool#watchSilence} judged it): every call here
     * fails now and the connection closes, so that the callers need not wait out their deadlines.
     */
    void unresponsive(String why) {
        try {
            channel.eventLoop().execute(() -> {
                failAll(why);
                channel.close();
            });
        } catch (RejectedExecutionException closing) {
            // the client is closing, and its calls with it
        }
    }

    /** The connection closed: every call waiting on it fails now rather than at its deadline. */
    void failAll(String why) {
        boolean lostSent = false;
        for (ClientCall c : pending.values()) {
            lostSent |= c.sent && !c.isDone();
            c.fail(
                    c.sent
                            ? new RpcException(
                                    RpcStatus.CONNECTION_CLOSED,
                                    c.description + ": connection to " + endpoint + " " + why
                                            + " after the request was sent; it may or may not have run"
                                            + (c.stream != null
                                                    ? " (its stream had " + c.stream.received() + " messages from it)"
                                                    : ""))
                            : new RpcException(
                                    RpcStatus.UNAVAILABLE,
                                    c.description + ": connection to " + endpoint + " " + why
                                            + " before the request was sent"));
        }
        if (lostSent && health != null) {
            health.failed(); // one lost connection is one failure, however many calls it carried
        }
    }
}
