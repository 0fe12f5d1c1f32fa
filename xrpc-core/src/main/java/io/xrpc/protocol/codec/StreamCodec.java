package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.serialize.Serializer;
import java.io.IOException;

/**
 * The frames of a stream call (see {@code docs/PROTOCOL.md}, "Streams"): a message, the end of one
 * side's stream, and a credit grant. Every method that returns a {@link ByteBuf} hands its
 * ownership to the caller; on an exception nothing is left allocated.
 */
public final class StreamCodec {
    /** Bytes of a CREDIT body: the messages, then the bytes, each a signed 32-bit count. */
    public static final int CREDIT_BODY = 8;

    private StreamCodec() {}

    /**
     * One message of stream call {@code requestId}, written as the call's serializer writes a
     * message of {@code declaredType} ({@link Serializer#writeMessage}; {@code null}, a client
     * stream's empty result, is an empty body); compressed as a response is. A body over
     * {@code maxBodyLength} fails here, as a response's does.
     */
    public static ByteBuf encodeMessage(
            ByteBufAllocator alloc,
            long requestId,
            Serializer serializer,
            Compressor compressor,
            int compressThreshold,
            int maxBodyLength,
            Object message,
            Class<?> declaredType)
            throws IOException {
        ByteBuf buf = alloc.ioBuffer(128);
        try {
            RpcCodec.writeHeader(
                    buf, MessageType.STREAM_MESSAGE, serializer.id(), compressor.id(), (byte) 0, requestId, 0);
            if (message != null) {
                serializer.writeMessage(message, declaredType, new ByteBufOutputStream(buf));
            }
            return RpcCodec.finish(alloc, buf, compressor, compressThreshold, maxBodyLength, -1);
        } catch (IOException | RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }

    /** The sender's stream of call {@code requestId} completed: status {@code OK}, no body. */
    public static ByteBuf encodeEnd(ByteBufAllocator alloc, long requestId, byte serializerId) {
        ByteBuf buf = alloc.ioBuffer(HEADER_LENGTH);
        RpcCodec.writeHeader(
                buf, MessageType.STREAM_END, serializerId, IdentityCompressor.ID, RpcStatus.OK.code(), requestId, 0);
        return buf;
    }

    /** A grant of {@code messages} more messages and {@code bytes} more bytes of call {@code requestId}. */
    public static ByteBuf encodeCredit(ByteBufAllocator alloc, long requestId, int messages, int bytes) {
        ByteBuf buf = alloc.ioBuffer(HEADER_LENGTH + CREDIT_BODY);
        RpcCodec.writeHeader(buf, MessageType.CREDIT, (byte) 0, IdentityCompressor.ID, (byte) 0, requestId, 0);
        buf.writeInt(messages).writeInt(bytes);
        buf.setInt(OFFSET_BODY_LENGTH, CREDIT_BODY);
        return buf;
    }

    /**
     * The messages a CREDIT body grants; fails on a body of another length or a negative count, which
     * no honest peer sends.
     */
    public static int creditMessages(ByteBuf body) {
        check(body);
        return body.getInt(body.readerIndex());
    }

    /** The bytes a CREDIT body grants. */
    public static int creditBytes(ByteBuf body) {
        check(body);
        return body.getInt(body.readerIndex() + 4);
    }

    private static void check(ByteBuf body) {
        if (body.readableBytes() != CREDIT_BODY
                || body.getInt(body.readerIndex()) < 0
                || body.getInt(body.readerIndex() + 4) < 0) {
            throw new IllegalArgumentException("a credit of " + body.readableBytes() + " bytes"
                    + (body.readableBytes() == CREDIT_BODY ? " granting a negative count" : "") + " (expected: "
                    + CREDIT_BODY + " bytes, two counts >= 0)");
        }
    }
}
