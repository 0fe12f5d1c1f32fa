package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.FLAG_COMPRESSED;
import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.MAGIC;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BODY_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_BUDGET;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_COMPRESSOR;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_FLAGS;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_MAGIC;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_REQUEST_ID;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_SERIALIZER;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_STATUS;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_TYPE;
import static io.xrpc.protocol.ProtocolConstants.OFFSET_VERSION;
import static io.xrpc.protocol.ProtocolConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.protocol.MessageType;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Cuts the byte stream into {@link Frame}s. Not {@code @Sharable}: it keeps the partial frame of
 * its one connection.
 *
 * <p>Framing errors cannot be recovered from, because the next frame boundary is unknown: a wrong
 * magic or version (checked as soon as those bytes arrive, before anything is allocated), an
 * unknown message type, or a body length over the limit (refused from the header, without
 * buffering the body). Each throws a {@link CorruptedFrameException} or
 * {@link TooLongFrameException} naming the bad value, discards everything after it, and the
 * connection's handler closes that one connection.
 *
 * <p>Body errors are recoverable, since the frame's end is known: an unknown compressor, corrupt
 * compressed data, or a body that decompresses past the limit (a gzip bomb) yields a frame with a
 * {@link Frame#bodyError()}, and the connection carries on.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final int CHUNK = 8192;

    private final int maxFrameLength;
    private final CompressorRegistry compressors;
    private boolean failed;

    /**
     * @param maxFrameLength largest body accepted, before and after decompression
     * @param compressors    decompresses bodies flagged as compressed
     */
    public FrameDecoder(int maxFrameLength, CompressorRegistry compressors) {
        if (maxFrameLength <= 0) {
            throw new IllegalArgumentException("maxFrameLength: " + maxFrameLength + " (expected: > 0)");
        }
        this.maxFrameLength = maxFrameLength;
        this.compressors = compressors;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int start = in.readerIndex();
        int readable = in.readableBytes();
        if (readable >= 2 && in.getShort(start + OFFSET_MAGIC) != MAGIC) {
            fail(in, new CorruptedFrameException(String.format(
                    "bad magic 0x%04x (expected: 0x%04x); closing the connection",
                    in.getShort(start) & 0xFFFF, MAGIC)));
        }
        if (readable >= 3 && in.getByte(start + OFFSET_VERSION) != VERSION) {
            fail(in, new CorruptedFrameException("unsupported protocol version " + in.getByte(start + OFFSET_VERSION)
                    + " (expected: " + VERSION + "); closing the connection"));
        }
        if (readable < HEADER_LENGTH) {
            return;
        }
        int bodyLength = in.getInt(start + OFFSET_BODY_LENGTH);
        if (bodyLength < 0 || bodyLength > maxFrameLength) {
            fail(in, new TooLongFrameException("frame body of " + (bodyLength & 0xFFFFFFFFL)
                    + " bytes exceeds the limit of " + maxFrameLength + " bytes; closing the connection"));
        }
        MessageType type = MessageType.fromCode(in.getByte(start + OFFSET_TYPE));
        if (type == null) {
            fail(in, new CorruptedFrameException("unknown message type " + in.getByte(start + OFFSET_TYPE)
                    + "; closing the connection"));
        }
        if (readable < HEADER_LENGTH + bodyLength) {
            return;
        }
        byte serializer = in.getByte(start + OFFSET_SERIALIZER);
        byte compressor = in.getByte(start + OFFSET_COMPRESSOR);
        byte status = in.getByte(start + OFFSET_STATUS);
        byte flags = in.getByte(start + OFFSET_FLAGS);
        long requestId = in.getLong(start + OFFSET_REQUEST_ID);
        int budget = in.getInt(start + OFFSET_BUDGET);
        ByteBuf body = in.retainedSlice(start + HEADER_LENGTH, bodyLength);
        in.skipBytes(HEADER_LENGTH + bodyLength);

        String bodyError = null;
        if ((flags & FLAG_COMPRESSED) != 0) {
            try {
                Compressor c = compressors.byId(compressor);
                if (c == null) {
                    bodyError = "unknown compressor id " + compressor;
                } else {
                    ByteBuf plain = decompress(ctx, c, body);
                    if (plain == null) {
                        bodyError = "body decompresses to more than the limit of " + maxFrameLength + " bytes";
                    } else {
                        ByteBuf compressed = body;
                        body = plain;
                        compressed.release();
                    }
                }
            } catch (IOException | RuntimeException e) {
                bodyError = "corrupt " + compressors.byId(compressor).name() + " body: " + e.getMessage();
            } catch (Error e) {
                body.release();
                throw e;
            }
            if (bodyError != null) {
                body.release();
                body = null;
            }
        }
        out.add(new Frame(type, serializer, compressor, status, requestId, budget, body, bodyError));
    }

    /** Returns the decompressed body, or {@code null} when it would exceed the limit. */
    private ByteBuf decompress(ChannelHandlerContext ctx, Compressor c, ByteBuf body) throws IOException {
        ByteBuf out = ctx.alloc().buffer(Math.min(Math.max(body.readableBytes() * 4, 256), maxFrameLength));
        boolean ok = false;
        try (InputStream in = c.decompress(new ByteBufInputStream(body.duplicate()))) { // owns no buffer
            for (;;) {
                int room = maxFrameLength + 1 - out.readableBytes();
                int n = out.writeBytes(in, Math.min(CHUNK, room));
                if (n < 0) {
                    break;
                }
                if (out.readableBytes() > maxFrameLength) {
                    return null;
                }
            }
            ok = true;
            return out;
        } finally {
            if (!ok) {
                out.release();
            }
        }
    }

    private void fail(ByteBuf in, Exception e) throws Exception {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw e;
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        decode(ctx, in, out);
        if (!failed && in.isReadable()) {
            int got = in.readableBytes();
            String expected = got >= HEADER_LENGTH
                    ? (HEADER_LENGTH + in.getInt(in.readerIndex() + OFFSET_BODY_LENGTH)) + " bytes"
                    : "at least " + HEADER_LENGTH + " header bytes";
            in.skipBytes(got);
            throw new CorruptedFrameException("connection closed in the middle of a frame: received " + got
                    + " of " + expected);
        }
    }
}
