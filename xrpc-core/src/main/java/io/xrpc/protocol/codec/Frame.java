package io.xrpc.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.xrpc.protocol.MessageType;

/**
 * One decoded frame: the header fields and the body, already decompressed.
 *
 * <p>The frame owns its body: whoever takes a frame from the pipeline must call {@link #release()}
 * exactly once, after which the body must not be touched. When the header was sound but the body
 * could not be decompressed, {@link #bodyError()} says why and there is no body; the connection
 * stays usable and the receiver answers (or drops) just that request.
 */
public final class Frame {
    private final MessageType type;
    private final byte serializerId;
    private final byte compressorId;
    private final byte status;
    private final long requestId;
    private final int budgetMillis;
    private final ByteBuf body;
    private final String bodyError;

    Frame(MessageType type, byte serializerId, byte compressorId, byte status, long requestId,
          int budgetMillis, ByteBuf body, String bodyError) {
        this.type = type;
        this.serializerId = serializerId;
        this.compressorId = compressorId;
        this.status = status;
        this.requestId = requestId;
        this.budgetMillis = budgetMillis;
        this.body = body;
        this.bodyError = bodyError;
    }

    public MessageType type() {
        return type;
    }

    public byte serializerId() {
        return serializerId;
    }

    public byte compressorId() {
        return compressorId;
    }

    public byte status() {
        return status;
    }

    public long requestId() {
        return requestId;
    }

    public int budgetMillis() {
        return budgetMillis;
    }

    /** The decompressed body, or {@code null} when {@link #bodyError()} is set. */
    public ByteBuf body() {
        return body;
    }

    /** Why the body could not be read, or {@code null}. */
    public String bodyError() {
        return bodyError;
    }

    /** Releases the body. Call once. */
    public void release() {
        if (body != null) {
            body.release();
        }
    }

    @Override
    public String toString() {
        return "Frame[" + type + " id=" + requestId + " ser=" + serializerId + " comp=" + compressorId
                + " status=" + status + " budget=" + budgetMillis + "ms body="
                + (body == null ? bodyError : body.readableBytes() + "B") + "]";
    }
}
