package io.xrpc.protocol;

/** The kind of frame, byte 3 of the header. Codes 6-255 are free for later kinds. */
public enum MessageType {
    REQUEST(1),
    RESPONSE(2),
    HEARTBEAT_PING(3),
    HEARTBEAT_PONG(4),
    /**
     * Server to client: this server is shutting down. Send no new calls on this connection; close
     * it once the calls already sent have their answers.
     */
    GOAWAY(5);

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
