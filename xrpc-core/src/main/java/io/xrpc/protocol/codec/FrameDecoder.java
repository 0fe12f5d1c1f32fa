package io.xrpc.protocol.codec;

import static io.xrpc.protocol.ProtocolConstants.FLAG_TIMESTAMPED;
import static io.xrpc.protocol.ProtocolConstants.HEADER_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.KNOWN_FLAGS;
import static io.xrpc.protocol.ProtocolConstants.MAGIC;
import static io.xrpc.protocol.ProtocolConstants.MIN_VERSION;
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
import static io.xrpc.protocol.ProtocolConstants.TIMESTAMP_LENGTH;
import static io.xrpc.protocol.ProtocolConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import io.xrpc.protocol.MessageType;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cuts the byte stream into {@link Frame}s. Not {@code @Sharable}: it keeps the partial frame of
 * its one connection. Bodies are passed on as they came; decompressing is the reader's step
 * ({@link Frame#decompress}), off the event loop on the server.
 *
 * <p>Framing errors cannot be recovered from, because the next frame boundary is unknown: a wrong
 * magic or version (checked as soon as those bytes arrive, before anything is allocated), an
 * unknown message type, a body length over the limit (refused from the header, without buffering
 * the body), a timestamp flag on a body too short for it, or a frame that does not arrive whole
 * within the frame timeout (a peer trickling bytes). Each raises a {@link DecoderException}
 * naming the bad value or the limit, discards everything after it, and the connection's handler
 * closes that one connection.
 *
 * <p>The buffer that gathers a partial frame grows with the bytes that arrive, at most doubling
 * and never past the frame's declared length: a header claiming 8 MiB followed by a few bytes
 * costs a few KiB, and a whole 8 MiB frame costs 8 MiB rather than the 12 MiB Netty's default
 * growth would reserve.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;
    private final long frameTimeoutNanos;
    private boolean failed;
    /** When the first byte of the partial frame in the buffer arrived (nanoTime); 0 when none. */
    private long partialSince;

    private ScheduledFuture<?> frameTimer;
    private ChannelHandlerContext ctx;
    /** The event loop's clock (a test's embedded loop can move it on). */
    private Ticker ticker = Ticker.systemTicker();
    /**
     * The server's budget for requests in transit, or null (a client's decoder): until the
     * connection authenticates, the unauthenticated connections' share of it ({@link #budget(MemoryBudget)}).
     */
    private volatile MemoryBudget budget;
    /** The budget the frame now arriving reserved from (a switch applies from the next frame). */
    private MemoryBudget partialBudget;
    /** Bytes reserved in {@link #partialBudget} for the frame now arriving. */
    private long reservedForPartial;
    /** Bytes of a refused request's body still to skip as they arrive. */
    private long skipping;

    /** A decoder without a frame timeout. */
    public FrameDecoder(int maxFrameLength) {
        this(maxFrameLength, 0);
    }

    /** A decoder without a memory budget: see {@link #FrameDecoder(int, long, MemoryBudget)}. */
    public FrameDecoder(int maxFrameLength, long frameTimeoutMillis) {
        this(maxFrameLength, frameTimeoutMillis, null);
    }

    /**
     * @param maxFrameLength     largest body accepted (a body may decompress to this much too)
     * @param frameTimeoutMillis how long a frame may take to arrive whole once its first byte
     *                           came, or 0 for no limit
     * @param budget             where a request over {@link MemoryBudget#FREE_BODY} reserves its
     *                           body; one that does not fit is passed on {@link Frame#isOverBudget()
     *                           over budget} at once, with no body, and its bytes are skipped as they
     *                           arrive. Null for none.
     */
    public FrameDecoder(int maxFrameLength, long frameTimeoutMillis, MemoryBudget budget) {
        if (maxFrameLength <= 0) {
            throw new IllegalArgumentException("maxFrameLength: " + maxFrameLength + " (expected: > 0)");
        }
        if (frameTimeoutMillis < 0) {
            throw new IllegalArgumentException("frameTimeoutMillis: " + frameTimeoutMillis + " (expected: >= 0)");
        }
        this.maxFrameLength = maxFrameLength;
        this.frameTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(frameTimeoutMillis);
        this.budget = budget;
        this.partialBudget = budget;
        setCumulator(this::cumulate);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        this.ticker = ctx.executor() instanceof AbstractScheduledEventExecutor e ? e.ticker() : Ticker.systemTicker();
        super.handlerAdded(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (skipping > 0) {
            int n = (int) Math.min(skipping, in.readableBytes());
            in.skipBytes(n);
            skipping -= n;
            if (skipping > 0) {
                return; // the frame clock runs on: a refused body too must arrive within the timeout
            }
            partialSince = 0;
        }
        Frame frame = decodeFrame(in);
        if (frame != null) {
            out.add(frame);
            partialSince = 0;
            if (skipping > 0) { // a refused request's body is still to come, within the frame timeout
                partialSince = ticker.nanoTime();
                armFrameTimer();
            }
        } else if (in.isReadable() && partialSince == 0 && !failed) {
            partialSince = ticker.nanoTime();
            armFrameTimer();
        }
    }

    private Frame decodeFrame(ByteBuf in) throws Exception {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        if (readable >= 2 && in.getShort(start + OFFSET_MAGIC) != MAGIC) {
            fail(
                    in,
                    new CorruptedFrameException(String.format(
                            "bad magic 0x%04x (expected: 0x%04x); closing the connection",
                            in.getShort(start) & 0xFFFF, MAGIC)));
        }
        if (readable >= 3) {
            byte version = in.getByte(start + OFFSET_VERSION);
            if (version < MIN_VERSION || version > VERSION) {
                fail(
                        in,
                        new CorruptedFrameException("unsupported protocol version " + version + " (expected: "
                                + MIN_VERSION + " to " + VERSION + "); closing the connection"));
            }
        }
        if (readable < HEADER_LENGTH) {
            return null;
        }
        int bodyLength = in.getInt(start + OFFSET_BODY_LENGTH);
        if (bodyLength < 0 || bodyLength > maxFrameLength) {
            fail(
                    in,
                    new TooLongFrameException("frame body of " + (bodyLength & 0xFFFFFFFFL)
                            + " bytes exceeds the limit of " + maxFrameLength + " bytes; closing the connection"));
        }
        MessageType type = MessageType.fromCode(in.getByte(start + OFFSET_TYPE));
        if (type == null) {
            fail(
                    in,
                    new CorruptedFrameException(
                            "unknown message type " + in.getByte(start + OFFSET_TYPE) + "; closing the connection"));
        }
        byte flags = in.getByte(start + OFFSET_FLAGS);
        if ((flags & ~KNOWN_FLAGS) != 0) {
            fail(
                    in,
                    new CorruptedFrameException(String.format(
                            "unknown flags 0x%02x (known: 0x%02x); closing the" + " connection",
                            flags & 0xFF, KNOWN_FLAGS)));
        }
        boolean stamped = (flags & FLAG_TIMESTAMPED) != 0;
        if (stamped && bodyLength < TIMESTAMP_LENGTH) {
            fail(
                    in,
                    new CorruptedFrameException("timestamped frame with a body of " + bodyLength
                            + " bytes (expected: at least " + TIMESTAMP_LENGTH + "); closing the connection"));
        }
        if (reservedForPartial == 0) {
            partialBudget = budget; // a new frame: the budget the connection has now
        }
        if (partialBudget != null && bodyLength > MemoryBudget.FREE_BODY) {
            // Reserved as the bytes arrive, not as the header claims: a header alone costs nothing.
            long have = Math.min((long) readable - HEADER_LENGTH, bodyLength);
            if (have > reservedForPartial) {
                if (!partialBudget.tryReserve(have - reservedForPartial)) {
                    return overBudget(in, start, type, bodyLength);
                }
                reservedForPartial = have;
            }
        }
        if (readable < HEADER_LENGTH + bodyLength) {
            return null;
        }
        int sentAt = stamped ? in.getInt(start + HEADER_LENGTH) : 0;
        int skip = stamped ? TIMESTAMP_LENGTH : 0;
        ByteBuf body = in.retainedSlice(start + HEADER_LENGTH + skip, bodyLength - skip);
        in.skipBytes(HEADER_LENGTH + bodyLength);
        Frame frame = frameAt(in, start, type, flags, sentAt, body);
        if (reservedForPartial != 0) {
            frame.reserving(partialBudget, reservedForPartial); // the frame gives it back when released
            reservedForPartial = 0;
        }
        return frame;
    }

    /**
     * A request or stream message whose body the budget has no room for (at its header, or as
     * more of it arrives): passed on at once without a body, so that it is refused (its stream
     * ended), and its bytes, those held already and those to come, are skipped, never buffered.
     * Anything else (a server receives nothing else this large) closes the connection.
     */
    private Frame overBudget(ByteBuf in, int start, MessageType type, int bodyLength) throws Exception {
        if (reservedForPartial != 0) {
            partialBudget.release(reservedForPartial); // what came of it is skipped below
            reservedForPartial = 0;
        }
        if (type != MessageType.REQUEST && type != MessageType.STREAM_MESSAGE) {
            fail(
                    in,
                    new TooLongFrameException(type + " frame of " + bodyLength + " bytes while the memory budget"
                            + " for requests (" + partialBudget.limit() + " bytes) is full; closing the connection"));
        }
        Frame refused =
                frameAt(in, start, type, (byte) 0, 0, Unpooled.EMPTY_BUFFER).overBudget();
        long frameBytes = HEADER_LENGTH + (long) bodyLength;
        int now = (int) Math.min(frameBytes, in.readableBytes());
        in.skipBytes(now);
        skipping = frameBytes - now;
        return refused;
    }

    /** The frame whose header starts at {@code start}, with {@code body}. */
    private static Frame frameAt(ByteBuf in, int start, MessageType type, byte flags, int sentAt, ByteBuf body) {
        return new Frame(
                type,
                in.getByte(start + OFFSET_SERIALIZER),
                in.getByte(start + OFFSET_COMPRESSOR),
                in.getByte(start + OFFSET_STATUS),
                flags,
                in.getLong(start + OFFSET_REQUEST_ID),
                in.getInt(start + OFFSET_BUDGET),
                sentAt,
                body);
    }

    private void fail(ByteBuf in, Exception e) throws Exception {
        failed = true;
        partialSince = 0;
        in.skipBytes(in.readableBytes());
        throw e;
    }

    private void armFrameTimer() {
        if (frameTimeoutNanos == 0 || frameTimer != null || ctx == null) {
            return;
        }
        frameTimer = ctx.executor().schedule(this::checkFrameTimeout, frameTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * This side reads the channel again after it stopped (auto-read off, for backpressure). While
     * it does not read, the frame clock stands still, since a frame held back in the socket is not
     * the peer's fault; reading again gives a partial frame a whole frame timeout anew. Event loop.
     */
    public void readingResumed() {
        if (partialSince != 0) {
            partialSince = ticker.nanoTime();
        }
    }

    /** Runs on the event loop: closes the connection if the frame begun then is still not whole. */
    private void checkFrameTimeout() {
        frameTimer = null;
        long since = partialSince;
        if (failed || since == 0 || !ctx.channel().isActive()) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) { // this side stopped reading
            frameTimer = ctx.executor().schedule(this::checkFrameTimeout, frameTimeoutNanos, TimeUnit.NANOSECONDS);
            return;
        }
        long waited = ticker.nanoTime() - since;
        if (waited < frameTimeoutNanos) {
            frameTimer =
                    ctx.executor().schedule(this::checkFrameTimeout, frameTimeoutNanos - waited, TimeUnit.NANOSECONDS);
            return;
        }
        ByteBuf partial = internalBuffer();
        int got = partial.readableBytes();
        String expected = skipping > 0
                ? skipping + " more bytes of a request refused for the memory budget"
                : got >= HEADER_LENGTH
                        ? (HEADER_LENGTH + (partial.getInt(partial.readerIndex() + OFFSET_BODY_LENGTH) & 0xFFFFFFFFL))
                                + " bytes"
                        : "a header of " + HEADER_LENGTH + " bytes";
        failed = true;
        partialSince = 0;
        partial.skipBytes(got);
        ctx.fireExceptionCaught(new DecoderException(new CorruptedFrameException("frame not complete within the"
                + " frame timeout of " + TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos) + " ms: received " + got
                + " of " + expected + "; closing the connection")));
    }

    /**
     * The budget this connection's next large requests reserve from (any thread): a server gives a
     * connection the unauthenticated share first and the whole budget once it authenticates. The
     * frame arriving keeps the one it began with.
     */
    public void budget(MemoryBudget budget) {
        this.budget = budget;
    }

    /** Whether a frame has begun to arrive and is not whole yet (or a refused one is being skipped). Event loop. */
    public boolean isReceiving() {
        return partialSince != 0 || skipping > 0;
    }

    /** Capacity of the buffer holding the partial frame, 0 when there is none. */
    int partialFrameCapacity() {
        return internalBuffer().capacity();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        ScheduledFuture<?> t = frameTimer;
        if (t != null) {
            frameTimer = null;
            t.cancel(false);
        }
        if (reservedForPartial != 0) {
            partialBudget.release(reservedForPartial); // the partial frame dies with the connection
            reservedForPartial = 0;
        }
    }

    /**
     * Appends {@code in} to the partial frame. Where Netty's cumulator would grow the buffer to
     * Netty's next size step (from 4 MiB on, the next multiple of 4 MiB), this one grows it to
     * at most twice the bytes held and no further than the frame's declared length.
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation == in) {
            in.release();
            return cumulation;
        }
        if (!cumulation.isReadable() && in.isContiguous()) {
            cumulation.release();
            return in;
        }
        try {
            int required = in.readableBytes();
            if (required <= cumulation.writableBytes() && !cumulation.isReadOnly()) {
                // Room without growing: safe even while frames still hold slices of it.
                cumulation.writeBytes(in, in.readerIndex(), required);
                in.readerIndex(in.writerIndex());
                return cumulation;
            }
            int need = cumulation.readableBytes() + required;
            ByteBuf next = alloc.buffer(capacityFor(cumulation, in, need));
            try {
                next.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
                next.writeBytes(in, in.readerIndex(), required);
            } catch (RuntimeException | Error e) {
                next.release();
                throw e;
            }
            in.readerIndex(in.writerIndex());
            cumulation.release();
            return next;
        } finally {
            in.release();
        }
    }

    private int capacityFor(ByteBuf cumulation, ByteBuf in, int need) {
        long target = 2L * need;
        if (need >= HEADER_LENGTH) {
            int body = bodyLengthOf(cumulation, in);
            if (body >= 0 && body <= maxFrameLength && HEADER_LENGTH + (long) body >= need) {
                target = Math.min(target, HEADER_LENGTH + (long) body);
            }
        }
        return (int) Math.min(Math.max(target, need), Integer.MAX_VALUE - 8);
    }

    /** The body length field of the frame that starts the partial data, which may straddle both buffers. */
    private static int bodyLengthOf(ByteBuf cumulation, ByteBuf in) {
        int v = 0;
        for (int i = OFFSET_BODY_LENGTH; i < OFFSET_BODY_LENGTH + 4; i++) {
            int held = cumulation.readableBytes();
            byte b = i < held
                    ? cumulation.getByte(cumulation.readerIndex() + i)
                    : in.getByte(in.readerIndex() + i - held);
            v = (v << 8) | (b & 0xFF);
        }
        return v;
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
            throw new CorruptedFrameException(
                    "connection closed in the middle of a frame: received " + got + " of " + expected);
        }
    }
}
