package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.FLAG_COMPRESSED;
import static io.xrpc.protocol.ProtocolConstants.FLAG_TIMESTAMPED;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.protocol.MessageType;
import java.io.IOException;
import java.io.InputStream;

/**
 * One frame cut from the byte stream: the header fields and the body as it came, still compressed
 * when the sender compressed it. {@link #decompress} is a separate step so that it runs where the
 * body is read (the server's call thread), not on the event loop that cuts frames for every
 * connection.
 *
 * <p>The frame owns its body: whoever takes a frame from the pipeline must call {@link #release()}
 * exactly once, after which the body must not be touched.
 */
public final class Frame {
    private static final int CHUNK = 8192;

    private final MessageType type;
    private final byte serializerId;
    private final byte compressorId;
    private final byte status;
    private final byte flags;
    private final long requestId;
    private final int budgetMillis;
    private final int sentAtMillis;
    private ByteBuf body;
    /** Where the bytes of its body are reserved, or null. */
    private MemoryBudget budget;

    private boolean detached;

    private long reserved;
    /** Its body was not read: the server's memory budget had no room for it as it arrived. */
    private boolean overBudget;

    Frame(
            MessageType type,
            byte serializerId,
            byte compressorId,
            byte status,
            byte flags,
            long requestId,
            int budgetMillis,
            int sentAtMillis,
            ByteBuf body) {
        this.type = type;
        this.serializerId = serializerId;
        this.compressorId = compressorId;
        this.status = status;
        this.flags = flags;
        this.requestId = requestId;
        this.budgetMillis = budgetMillis;
        this.sentAtMillis = sentAtMillis;
        this.body = body;
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

    /** Whether the sender stamped the frame with its clock ({@link #sentAtMillis()}). */
    public boolean isTimestamped() {
        return (flags & FLAG_TIMESTAMPED) != 0;
    }

    /** The sender's clock when it encoded the frame, in milliseconds from an origin of its own. */
    public int sentAtMillis() {
        return sentAtMillis;
    }

    /** Whether the body is still compressed. */
    public boolean isCompressed() {
        return (flags & FLAG_COMPRESSED) != 0 && body != null && compressorId != 0;
    }

    /** Its body's bytes stay reserved in {@code budget} until it is released. */
    Frame reserving(MemoryBudget budget, long bytes) {
        this.budget = budget;
        this.reserved = bytes;
        return this;
    }

    /** Marks a request whose body was skipped unread: the memory budget had no room for it. */
    Frame overBudget() {
        this.overBudget = true;
        return this;
    }

    /**
     * Whether its body was skipped unread because the server's {@link MemoryBudget} had no room
     * for it as it arrived: the request is to be refused, as not run.
     */
    public boolean isOverBudget() {
        return overBudget;
    }

    /** The body: compressed until {@link #decompress} succeeded, if it was sent compressed. */
    public ByteBuf body() {
        return body;
    }

    /**
     * Replaces a compressed body by its plain bytes, stopping as soon as they exceed
     * {@code maxLength} (a small body that inflates without end, a "gzip bomb", costs no more
     * than the limit).
     *
     * @return {@code null} when the body is now plain, else why it could not be decompressed
     *         (the frame then has no body)
     */
    public String decompress(CompressorRegistry compressors, int maxLength) {
        if (!isCompressed()) {
            return null;
        }
        Compressor c = compressors.byId(compressorId);
        if (c == null) {
            dropBody();
            return "unknown compressor id " + compressorId;
        }
        ByteBuf out = body.alloc().buffer(Math.min(Math.max(body.readableBytes() * 4, 256), maxLength + 1));
        boolean ok = false;
        try (InputStream in = c.decompress(new ByteBufInputStream(body.duplicate()))) { // owns no buffer
            for (; ; ) {
                int room = maxLength + 1 - out.readableBytes();
                int n = out.writeBytes(in, Math.min(CHUNK, room));
                if (n < 0) {
                    break;
                }
                if (out.readableBytes() > maxLength) {
                    dropBody();
                    return "body decompresses to more than the limit of " + maxLength + " bytes";
                }
            }
            ok = true;
        } catch (IOException | RuntimeException e) {
            dropBody();
            return "corrupt " + c.name() + " body: " + e.getMessage();
        } finally {
            if (!ok) {
                out.release();
            }
        }
        body.release();
        body = out;
        return null;
    }

    private void dropBody() {
        ByteBuf b = body;
        body = null;
        if (b != null) {
            b.release();
        }
        MemoryBudget m = budget;
        if (m != null) {
            budget = null;
            m.release(reserved);
        }
    }

    /**
     * Moves the body to a heap copy of its own, releasing the connection's buffer and the memory
     * budget it held: for a frame kept for a reader who may never come back for it.
     */
    public void detach() {
        ByteBuf b = body;
        if (b == null || detached) {
            return;
        }
        byte[] copy = ByteBufUtil.getBytes(b);
        dropBody();
        body = Unpooled.wrappedBuffer(copy);
        detached = true;
    }

    /** Releases the body. Call once. */
    public void release() {
        dropBody();
    }

    @Override
    public String toString() {
        return "Frame[" + type + " id=" + requestId + " ser=" + serializerId + " comp=" + compressorId
                + " status=" + status + " budget=" + budgetMillis + "ms body="
                + (body == null ? "none" : body.readableBytes() + "B") + "]";
    }
}
