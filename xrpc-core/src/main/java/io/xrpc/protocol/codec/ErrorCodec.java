package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Error responses on the wire (see {@code docs/PROTOCOL.md}): a status with the remote class,
 * message and stack as three strings, cut to fit any receiver's frame limit, and for a declared
 * exception its carried form after them. Every method that returns a {@link ByteBuf} hands its
 * ownership to the caller.
 */
public final class ErrorCodec {
    /** Largest error body sent, whatever the sender's frame limit: no receiver's limit is smaller. */
    public static final int MAX_ERROR_BODY = ProtocolConstants.MIN_FRAME_LENGTH;
    /** Text stack sent beside a carried exception, for a caller that cannot rebuild it. */
    private static final int CARRIED_TEXT_STACK = 4096;
    /** Longest exception class name sent. */
    private static final int MAX_CLASS_NAME_BYTES = 1024;

    private ErrorCodec() {}

    /** The body of an error response. */
    public record RemoteError(String className, String message, String stackTrace) {}

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
        RpcCodec.writeHeader(buf, MessageType.GOAWAY, (byte) 0, IdentityCompressor.ID, status.code(), 0L, 0);
        writeLongString(buf, null);
        writeLongString(buf, truncate(message, 1024));
        writeLongString(buf, null);
        buf.setInt(OFFSET_BODY_LENGTH, buf.readableBytes() - HEADER_LENGTH);
        return buf;
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
        return encodeError(
                alloc,
                MessageType.RESPONSE,
                requestId,
                serializerId,
                compressorId,
                status,
                className,
                message,
                stackTrace,
                maxBodyLength);
    }

    /**
     * As {@link #encodeError(ByteBufAllocator, long, byte, byte, RpcStatus, String, String, String,
     * int)}, in a frame of {@code type}: a {@link MessageType#STREAM_END} that ends a stream with a
     * failure has the same body as a failed response.
     */
    public static ByteBuf encodeError(
            ByteBufAllocator alloc,
            MessageType type,
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
        RpcCodec.writeHeader(buf, type, serializerId, compressorId, status.code(), requestId, 0);
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
        Object value = serializer.readResult(RpcCodec.rest(body), ExceptionValue.class, deadlineNanos);
        if (value != null && !(value instanceof ExceptionValue)) {
            throw new SerializationException(serializer.name() + " read a declared exception's carried form as "
                    + value.getClass().getName() + ", not " + ExceptionValue.class.getName());
        }
        return (ExceptionValue) value;
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
        RpcCodec.checkReadable(buf, n);
        return buf.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }
}
