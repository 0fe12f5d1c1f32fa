package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.FLAG_COMPRESSED;
import static io.xrpc.protocol.ProtocolConstants.FLAG_TIMESTAMPED;
import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.MAGIC;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_FLAGS;
import static io.xrpc.protocol.ProtocolConstants.TIMESTAMP_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * Encodes whole frames and reads frame bodies; see {@code docs/PROTOCOL.md} for the body layouts.
 *
 * <p>Encoding runs on the calling thread (the caller of a proxy, or the business thread that ran
 * a request), so serialization costs are spread over those threads rather than the event loop,
 * and an argument that cannot be serialized fails its own call before anything is sent. Every
 * method that returns a {@link ByteBuf} hands its ownership to the caller; on an exception nothing
 * is left allocated.
 */
public final class RpcCodec {
    private RpcCodec() {}

    /** The head of a request body: where the call goes, and its attachments. */
    public record RequestHead(String serviceKey, String signature, Map<String, String> attachments) {}

    /**
     * @param sentAtMillis  the sender's clock ({@link #clockMillis(long)}) read with the budget
     * @param maxBodyLength the sender's own frame limit: a body over it fails here with
     *                      {@link FrameTooLargeException} rather than making the receiver close
     *                      a connection other calls share
     */
    public static ByteBuf encodeRequest(
            ByteBufAllocator alloc,
            long requestId,
            int budgetMillis,
            int sentAtMillis,
            Serializer serializer,
            Compressor compressor,
            int compressThreshold,
            int maxBodyLength,
            byte[] serviceKey,
            byte[] signature,
            Map<String, String> attachments,
            Object[] arguments)
            throws IOException {
        ByteBuf buf = alloc.ioBuffer(256);
        try {
            writeHeader(buf, MessageType.REQUEST, serializer.id(), compressor.id(), (byte) 0, requestId, budgetMillis);
            buf.setByte(OFFSET_FLAGS, FLAG_TIMESTAMPED);
            buf.writeInt(sentAtMillis);
            buf.writeShort(serviceKey.length).writeBytes(serviceKey);
            buf.writeShort(signature.length).writeBytes(signature);
            if (attachments == null || attachments.isEmpty()) {
                buf.writeShort(0);
            } else {
                buf.writeShort(attachments.size());
                for (Map.Entry<String, String> e : attachments.entrySet()) {
                    writeShortString(buf, e.getKey());
                    writeShortString(buf, e.getValue());
                }
            }
            // Only the arguments are compressed: the head stays plain, so that a server routes and
            // authenticates a request before it inflates a byte of it.
            int headEnd = buf.writerIndex();
            if (arguments != null && arguments.length > 0) { // no parameters: nothing follows the head
                serializer.writeArguments(arguments, new ByteBufOutputStream(buf));
            }
            return finish(alloc, buf, compressor, compressThreshold, maxBodyLength, headEnd);
        } catch (IOException | RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }

    /** A successful response; a {@code null} value is an empty body. See {@link #encodeRequest} for the limit. */
    public static ByteBuf encodeResponse(
            ByteBufAllocator alloc,
            long requestId,
            Serializer serializer,
            Compressor compressor,
            int compressThreshold,
            int maxBodyLength,
            Object value)
            throws IOException {
        ByteBuf buf = alloc.ioBuffer(128);
        try {
            writeHeader(buf, MessageType.RESPONSE, serializer.id(), compressor.id(), RpcStatus.OK.code(), requestId, 0);
            if (value != null) {
                serializer.writeResult(value, new ByteBufOutputStream(buf));
            }
            return finish(alloc, buf, compressor, compressThreshold, maxBodyLength, -1);
        } catch (IOException | RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }

    /** A frame with an empty body: heartbeat pong, or GOAWAY from a server shutting down. */
    public static ByteBuf encodeControl(ByteBufAllocator alloc, MessageType type) {
        ByteBuf buf = alloc.ioBuffer(HEADER_LENGTH);
        writeHeader(buf, type, (byte) 0, IdentityCompressor.ID, (byte) 0, 0L, 0);
        return buf;
    }

    /** A CANCEL of request {@code requestId}: a header and no body. */
    public static ByteBuf encodeCancel(ByteBufAllocator alloc, long requestId) {
        ByteBuf buf = alloc.ioBuffer(HEADER_LENGTH);
        writeHeader(buf, MessageType.CANCEL, (byte) 0, IdentityCompressor.ID, (byte) 0, requestId, 0);
        return buf;
    }

    /** A heartbeat ping, stamped with the sender's clock so the peer can keep its view of the link's delay fresh. */
    public static ByteBuf encodePing(ByteBufAllocator alloc) {
        ByteBuf buf = alloc.ioBuffer(HEADER_LENGTH + TIMESTAMP_LENGTH);
        writeHeader(buf, MessageType.HEARTBEAT_PING, (byte) 0, IdentityCompressor.ID, (byte) 0, 0L, 0);
        buf.setByte(OFFSET_FLAGS, FLAG_TIMESTAMPED);
        buf.writeInt(clockMillis());
        buf.setInt(OFFSET_BODY_LENGTH, TIMESTAMP_LENGTH);
        return buf;
    }

    /** This JVM's clock as frames carry it: milliseconds, an arbitrary origin, wrapping at 2^32. */
    public static int clockMillis() {
        return clockMillis(System.nanoTime());
    }

    /** {@link #clockMillis()} at {@code nanoTime}, a {@link System#nanoTime()} reading. */
    public static int clockMillis(long nanoTime) {
        return (int) (nanoTime / 1_000_000L);
    }

    /** The 24-byte header of a frame, its body length 0 until the body is written. */
    public static void writeHeader(
            ByteBuf buf,
            MessageType type,
            byte serializer,
            byte compressor,
            byte status,
            long requestId,
            int budgetMillis) {
        buf.writeShort(MAGIC)
                .writeByte(VERSION)
                .writeByte(type.code())
                .writeByte(serializer)
                .writeByte(compressor)
                .writeByte(status)
                .writeByte(0)
                .writeLong(requestId)
                .writeInt(budgetMillis)
                .writeInt(0);
    }

    /**
     * Fills in the body length, compressing the body first when it is worth it, and refuses a body
     * over the limit. On failure {@code buf} is the caller's to release.
     */
    /**
     * Sets the body length, compressing the body when the compressor and the threshold say so.
     *
     * @param plainEnd writer index up to which the body stays plain (a request's head), or -1 for
     *                 the clock stamp only
     */
    static ByteBuf finish(
            ByteBufAllocator alloc, ByteBuf buf, Compressor compressor, int threshold, int maxBodyLength, int plainEnd)
            throws IOException {
        int bodyLength = buf.readableBytes() - HEADER_LENGTH;
        // A clock stamp stays in front, plain: the receiver reads it before decompressing.
        int flags = buf.getByte(buf.readerIndex() + OFFSET_FLAGS);
        int plain = plainEnd >= 0
                ? plainEnd - buf.readerIndex()
                : HEADER_LENGTH + ((flags & FLAG_TIMESTAMPED) != 0 ? TIMESTAMP_LENGTH : 0);
        if (compressor.id() == IdentityCompressor.ID || bodyLength < threshold || plain >= buf.readableBytes()) {
            checkLimit(bodyLength, maxBodyLength);
            buf.setInt(OFFSET_BODY_LENGTH, bodyLength);
            return buf;
        }
        ByteBuf out = alloc.ioBuffer(HEADER_LENGTH + bodyLength / 2 + 64);
        try {
            out.writeBytes(buf, buf.readerIndex(), plain);
            try (OutputStream z = compressor.compress(new ByteBufOutputStream(out))) {
                buf.getBytes(buf.readerIndex() + plain, z, HEADER_LENGTH + bodyLength - plain);
            }
            int compressedLength = out.readableBytes() - HEADER_LENGTH;
            checkLimit(compressedLength, maxBodyLength);
            out.setByte(OFFSET_FLAGS, flags | FLAG_COMPRESSED);
            out.setInt(OFFSET_BODY_LENGTH, compressedLength);
            buf.release();
            return out;
        } catch (IOException | RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    private static void checkLimit(int bodyLength, int maxBodyLength) throws FrameTooLargeException {
        if (bodyLength > maxBodyLength) {
            throw new FrameTooLargeException(
                    "body of " + bodyLength + " bytes is over the frame limit of " + maxBodyLength + " bytes");
        }
    }

    /** A frame would exceed the sender's own limit; nothing was sent. */
    public static final class FrameTooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        FrameTooLargeException(String message) {
            super(message);
        }
    }

    /** Reads the head of a request body, leaving the reader index at the arguments. */
    public static RequestHead readRequestHead(ByteBuf body) {
        return readRequestHead(body, null);
    }

    /**
     * Reads the head of a request body, leaving the reader index at the arguments; the service key
     * and signature come from {@code names} when it holds them (null: decode them).
     */
    public static RequestHead readRequestHead(ByteBuf body, ShortStringCache names) {
        String serviceKey = readName(body, names);
        String signature = readName(body, names);
        int n = body.readUnsignedShort();
        Map<String, String> attachments;
        if (n == 0) {
            attachments = Collections.emptyMap();
        } else {
            attachments = new HashMap<>(Math.min(n, body.readableBytes() / 4) * 2); // a pair takes 4 bytes at least
            for (int i = 0; i < n; i++) {
                attachments.put(readShortString(body), readShortString(body));
            }
        }
        return new RequestHead(serviceKey, signature, attachments);
    }

    /** Reads the arguments that follow the request head; a method without parameters has an empty rest. */
    public static Object[] readArguments(ByteBuf body, Serializer serializer, Class<?>[] types, long deadlineNanos)
            throws IOException {
        return readArguments(body, serializer, types, types, deadlineNanos);
    }

    /** As {@link #readArguments(ByteBuf, Serializer, Class[], long)}, with the parameters' generic types. */
    public static Object[] readArguments(
            ByteBuf body, Serializer serializer, Class<?>[] types, Type[] genericTypes, long deadlineNanos)
            throws IOException {
        if (types.length == 0) {
            if (body.isReadable()) {
                throw new SerializationException(
                        body.readableBytes() + " bytes of arguments sent to a method" + " that takes none");
            }
            return NO_ARGUMENTS;
        }
        return serializer.readArguments(rest(body), types, genericTypes, deadlineNanos);
    }

    /**
     * The rest of {@code body} as one buffer for a serializer, which reads all of it or fails: a
     * view of a frame's memory (a body in several pieces, which frames never are, would be copied).
     */
    static ByteBuffer rest(ByteBuf body) {
        ByteBuffer rest = body.nioBuffer();
        body.skipBytes(body.readableBytes());
        return rest;
    }

    private static final Object[] NO_ARGUMENTS = new Object[0];

    /** Reads a successful response's value; an empty body is {@code null}. */
    public static Object readResult(ByteBuf body, Serializer serializer, Class<?> type, long deadlineNanos)
            throws IOException {
        return readResult(body, serializer, type, type, deadlineNanos);
    }

    /** As {@link #readResult(ByteBuf, Serializer, Class, long)}, with the result's generic type. */
    public static Object readResult(
            ByteBuf body, Serializer serializer, Class<?> type, Type genericType, long deadlineNanos)
            throws IOException {
        if (!body.isReadable()) {
            return null;
        }
        return serializer.readResult(rest(body), type, genericType, deadlineNanos);
    }

    /**
     * Reads one stream message of a body ({@link Serializer#readMessage}); an empty body is
     * {@code null}.
     */
    public static Object readMessage(
            ByteBuf body, Serializer serializer, Class<?> type, Type genericType, long deadlineNanos)
            throws IOException {
        if (!body.isReadable()) {
            return null;
        }
        return serializer.readMessage(rest(body), type, genericType, deadlineNanos);
    }

    /** A short string (an unsigned 16-bit length and its UTF-8 bytes), as a request's head holds them. */
    public static void writeShortString(ByteBuf buf, String s) {
        int at = buf.writerIndex();
        buf.writeShort(0);
        int n = ByteBufUtil.writeUtf8(buf, s == null ? "" : s);
        if (n > 0xFFFF) {
            throw new IllegalArgumentException("attachment of " + n + " UTF-8 bytes (expected: at most 65535)");
        }
        buf.setShort(at, n);
    }

    private static String readName(ByteBuf buf, ShortStringCache names) {
        if (names == null) {
            return readShortString(buf);
        }
        int n = buf.readUnsignedShort();
        checkReadable(buf, n);
        return names.read(buf, n);
    }

    private static String readShortString(ByteBuf buf) {
        int n = buf.readUnsignedShort();
        checkReadable(buf, n);
        return buf.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }

    /** Netty sizes its decoding scratch from the length before it checks the bytes are there. */
    static void checkReadable(ByteBuf buf, int n) {
        if (n > buf.readableBytes()) {
            throw new IndexOutOfBoundsException("a string of " + n + " bytes with " + buf.readableBytes() + " left");
        }
    }
}
