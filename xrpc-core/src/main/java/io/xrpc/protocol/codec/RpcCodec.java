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
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.RemoteExceptions;
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
    /** Largest error body sent, whatever the sender's frame limit: no receiver's limit is smaller. */
    public static final int MAX_ERROR_BODY = ProtocolConstants.MIN_FRAME_LENGTH;
    /** Text stack sent beside a carried exception, for a caller that cannot rebuild it. */
    private static final int CARRIED_TEXT_STACK = 4096;
    /** Longest exception class name sent. */
    private static final int MAX_CLASS_NAME_BYTES = 1024;

    private RpcCodec() {}

    /** The head of a request body: where the call goes, and its attachments. */
    public record RequestHead(String serviceKey, String signature, Map<String, String> attachments) {}

    /** The body of an error response. */
    public record RemoteError(String className, String message, String stackTrace) {}

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

    /**
     * An error response. Its body is plain text and never compressed, so any peer can read it. It
     * is cut to fit {@code maxBodyLength} and {@link ProtocolConstants#MIN_FRAME_LENGTH} (the
     * message and stack trace lose their ends, marked "(truncated)"), so that an exception with an
     * enormous message fails only its own call and never makes a receiver close a connection other
     * calls share, whatever its frame limit.
     */
    public static ByteBuf encodeError(
            ByteBufAllocator alloc,
            long requestId,
            byte serializerId,
            byte compressorId,
            RpcStatus status,
            String className,
            String message,
            String stackTrace,
            int maxBodyLength) {
        int room = Math.min(maxBodyLength, MAX_ERROR_BODY) - 3 * 4;
        String cls = truncate(className, MAX_CLASS_NAME_BYTES);
        room -= utf8Length(cls);
        String msg = truncate(message, Math.max(0, room));
        room -= utf8Length(msg);
        String stack = truncate(stackTrace, Math.max(0, room));
        ByteBuf buf = alloc.ioBuffer(128);
        writeHeader(buf, MessageType.RESPONSE, serializerId, compressorId, status.code(), requestId, 0);
        writeLongString(buf, cls);
        writeLongString(buf, msg);
        writeLongString(buf, stack);
        buf.setInt(OFFSET_BODY_LENGTH, buf.readableBytes() - HEADER_LENGTH);
        return buf;
    }

    /**
     * An {@link RpcStatus#APPLICATION_ERROR} response that also carries {@code carried}, the
     * exception in the form {@link io.xrpc.serialize.RemoteExceptions#describe} gives, written with
     * the request's serializer after the three strings (the text stack is then cut to 4 KiB, for
     * a caller that cannot rebuild the exception). Receivers that know nothing of it read the
     * strings and stop. When
     * the carried form cannot be written or does not fit the error limit, the answer is the plain
     * text one.
     */
    public static ByteBuf encodeApplicationError(
            ByteBufAllocator alloc,
            long requestId,
            Serializer serializer,
            byte compressorId,
            String className,
            String message,
            String stackTrace,
            int maxBodyLength,
            ExceptionValue carried) {
        String notCarried = null;
        if (carried != null) {
            ByteBuf buf = encodeError(
                    alloc,
                    requestId,
                    serializer.id(),
                    compressorId,
                    RpcStatus.APPLICATION_ERROR,
                    className,
                    message,
                    truncate(stackTrace, CARRIED_TEXT_STACK),
                    maxBodyLength);
            try {
                serializer.writeResult(carried, new ByteBufOutputStream(buf));
                int body = buf.readableBytes() - HEADER_LENGTH;
                if (body <= Math.min(maxBodyLength, MAX_ERROR_BODY)) {
                    buf.setInt(OFFSET_BODY_LENGTH, body);
                    return buf;
                }
                notCarried = "it takes " + body + " bytes, more than the " + Math.min(maxBodyLength, MAX_ERROR_BODY)
                        + " an error answer may";
            } catch (IOException | RuntimeException | Error e) {
                notCarried = serializer.name() + " could not write it: " + e;
            }
            buf.release();
        }
        // Not carried: the text answer says what was thrown, and why it is not the exception itself.
        String text = notCarried == null
                ? stackTrace
                : RemoteExceptions.notCarried(notCarried) + (stackTrace == null ? "" : stackTrace);
        return encodeError(
                alloc,
                requestId,
                serializer.id(),
                compressorId,
                RpcStatus.APPLICATION_ERROR,
                className,
                message,
                text,
                maxBodyLength);
    }

    private static final String TRUNCATED = "... (truncated)";

    /** {@code s} cut, on a character boundary, so that its UTF-8 form takes at most {@code maxBytes}. */
    static String truncate(String s, int maxBytes) {
        if (s == null || s.length() <= maxBytes / 3) {
            return s; // even at 3 bytes a char it fits
        }
        if (s.length() <= maxBytes && ByteBufUtil.utf8Bytes(s) <= maxBytes) {
            return s; // (a longer string cannot fit: no need to measure all of it)
        }
        int budget = maxBytes - TRUNCATED.length();
        if (budget <= 0) {
            return "";
        }
        int bytes = 0;
        int end = 0;
        while (end < s.length()) {
            char c = s.charAt(end);
            int n;
            int step = 1;
            if (c < 0x80) {
                n = 1;
            } else if (c < 0x800) {
                n = 2;
            } else if (Character.isHighSurrogate(c)
                    && end + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(end + 1))) {
                n = 4;
                step = 2;
            } else {
                n = 3;
            }
            if (bytes + n > budget) {
                break;
            }
            bytes += n;
            end += step;
        }
        return s.substring(0, end) + TRUNCATED;
    }

    private static int utf8Length(String s) {
        return s == null ? 0 : ByteBufUtil.utf8Bytes(s);
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

    /**
     * A GOAWAY that refuses a connection: status {@code UNAVAILABLE} and an error body saying why.
     * The server has read nothing from the connection and will not, so the client may send every
     * call on it elsewhere.
     */
    public static ByteBuf encodeRefusal(ByteBufAllocator alloc, String message) {
        return encodeGoAway(alloc, RpcStatus.UNAVAILABLE, message);
    }

    /**
     * A GOAWAY with a status and the reason as text: {@code UNAVAILABLE} is a refusal (nothing
     * sent on the connection ran, see {@link #encodeRefusal}); any other only ends the connection,
     * such as {@code UNAUTHENTICATED} for one that carried no authenticated call.
     */
    public static ByteBuf encodeGoAway(ByteBufAllocator alloc, RpcStatus status, String message) {
        ByteBuf buf = alloc.ioBuffer(128);
        writeHeader(buf, MessageType.GOAWAY, (byte) 0, IdentityCompressor.ID, status.code(), 0L, 0);
        writeLongString(buf, null);
        writeLongString(buf, truncate(message, 1024));
        writeLongString(buf, null);
        buf.setInt(OFFSET_BODY_LENGTH, buf.readableBytes() - HEADER_LENGTH);
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

    private static void writeHeader(
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
    private static ByteBuf finish(
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
    private static ByteBuffer rest(ByteBuf body) {
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

    public static RemoteError readError(ByteBuf body) {
        return new RemoteError(readLongString(body), readLongString(body), readLongString(body));
    }

    /**
     * After {@link #readError}: the exception an {@link #encodeApplicationError} carried, or
     * {@code null} when the body ends with the strings.
     */
    public static ExceptionValue readCarriedError(ByteBuf body, Serializer serializer, long deadlineNanos)
            throws IOException {
        if (!body.isReadable()) {
            return null;
        }
        Object value = serializer.readResult(rest(body), ExceptionValue.class, deadlineNanos);
        if (value != null && !(value instanceof ExceptionValue)) {
            throw new SerializationException(serializer.name() + " read a declared exception's carried form as "
                    + value.getClass().getName() + ", not " + ExceptionValue.class.getName());
        }
        return (ExceptionValue) value;
    }

    private static void writeShortString(ByteBuf buf, String s) {
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
    private static void checkReadable(ByteBuf buf, int n) {
        if (n > buf.readableBytes()) {
            throw new IndexOutOfBoundsException("a string of " + n + " bytes with " + buf.readableBytes() + " left");
        }
    }

    private static void writeLongString(ByteBuf buf, String s) {
        if (s == null) {
            buf.writeInt(-1);
            return;
        }
        int at = buf.writerIndex();
        buf.writeInt(0);
        buf.setInt(at, ByteBufUtil.writeUtf8(buf, s));
    }

    private static String readLongString(ByteBuf buf) {
        int n = buf.readInt();
        if (n < 0) {
            return null;
        }
        checkReadable(buf, n);
        return buf.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }
}
