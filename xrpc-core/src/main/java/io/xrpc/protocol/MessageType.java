package io.xrpc.protocol;

/** The kind of frame, byte 3 of the header. Codes 10-255 are free for later kinds. */
public enum MessageType {
    REQUEST(1),
    RESPONSE(2),
    HEARTBEAT_PING(3),
    HEARTBEAT_PONG(4),
    /**
     * Server to client: this server is shutting down. Send no new calls on this connection; close
     * it once the calls already sent have their answers.
     */
    GOAWAY(5),
    /**
     * Client to server, header only: the caller gave up on the request with this id (a hedged
     * attempt that lost, a cancel). A request not yet started is not run; one running runs to
     * its end, and its answer is not sent. Servers before this kind close the connection on it.
     */
    CANCEL(6),
    /**
     * Either way: one message of the stream call with this id, its body as the call's serializer
     * writes a value. Sent only within the credit the receiver granted.
     */
    STREAM_MESSAGE(7),
    /**
     * Either way: the sender's stream of this call ends. Status {@code OK} and no body: it
     * completed (from the caller: it sends no more; from the provider: the call is over). Any other
     * status: the call failed, with an error body as a failed response has.
     */
    STREAM_END(8),
    /**
     * Either way: the sender may receive this many more messages and bytes of the stream call with
     * this id (body: two 32-bit counts). The provider's first one also says it accepted the stream.
     */
    CREDIT(9);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final byte code;

    MessageType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The type for a header byte, or {@code null} when this version does not know it. */
    public static MessageType fromCode(byte code) {
        return BY_CODE[code & 0xFF];
    }
}
