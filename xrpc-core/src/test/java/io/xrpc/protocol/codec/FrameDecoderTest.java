package io.xrpc.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.xrpc.common.RpcStatus;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.compress.GzipCompressor;
import io.xrpc.compress.IdentityCompressor;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.testing.Allocations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
    private static final int MAX = 64 * 1024;
    private final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX));
    private final CompressorRegistry compressors = CompressorRegistry.load();

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
    }

    private static ByteBuf frame(long id, byte[] body, boolean gzipFlag) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(ProtocolConstants.MAGIC)
                .writeByte(ProtocolConstants.VERSION)
                .writeByte(MessageType.REQUEST.code())
                .writeByte(1)
                .writeByte(gzipFlag ? GzipCompressor.ID : 0)
                .writeByte(0)
                .writeByte(gzipFlag ? ProtocolConstants.FLAG_COMPRESSED : 0)
                .writeLong(id)
                .writeInt(1000)
                .writeInt(body.length)
                .writeBytes(body);
        return b;
    }

    @Test
    void partialFramesAreAssembledByteByByte() {
        ByteBuf whole = frame(7, "hello".getBytes(), false);
        ByteBuf second = frame(8, new byte[0], false);
        while (whole.isReadable()) {
            assertThat(ch.<Object>readInbound()).isNull();
            ch.writeInbound(whole.readRetainedSlice(1));
        }
        whole.release();
        ch.writeInbound(second);
        Frame f = ch.readInbound();
        assertThat(f.requestId()).isEqualTo(7);
        assertThat(f.budgetMillis()).isEqualTo(1000);
        assertThat(f.body().toString(StandardCharsets.UTF_8)).isEqualTo("hello");
        f.release();
        Frame g = ch.readInbound();
        assertThat(g.requestId()).isEqualTo(8);
        assertThat(g.body().readableBytes()).isZero();
        g.release();
    }

    @Test
    void thePartialFrameBufferGrowsWithTheBytesThatArriveNeverPastTheDeclaredLength() {
        int max = ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH;
        FrameDecoder decoder = new FrameDecoder(max);
        EmbeddedChannel big = new EmbeddedChannel(decoder);
        try {
            ByteBuf header = frame(1, new byte[0], false);
            header.setInt(ProtocolConstants.OFFSET_BODY_LENGTH, max);
            big.writeInbound(header, Unpooled.wrappedBuffer(new byte[1024]));
            // A header claiming 8 MiB and 1 KiB of body hold about what came, not what was claimed.
            assertThat(decoder.partialFrameCapacity()).isLessThanOrEqualTo(64 * 1024);
            byte[] chunk = new byte[64 * 1024];
            int sent = 1024;
            while (sent + chunk.length < max) {
                big.writeInbound(Unpooled.wrappedBuffer(chunk));
                sent += chunk.length;
            }
            // All but the last bytes of 8 MiB: the buffer holds the frame, not Netty's next 4 MiB step (12 MiB).
            assertThat(decoder.partialFrameCapacity()).isLessThanOrEqualTo(ProtocolConstants.HEADER_LENGTH + max);
            big.writeInbound(Unpooled.wrappedBuffer(new byte[max - sent]));
            Frame f = big.readInbound();
            assertThat(f.body().readableBytes()).isEqualTo(max);
            f.release();
        } finally {
            big.finishAndReleaseAll();
        }
    }

    @Test
    void theFrameClockStandsStillWhileThisSideDoesNotRead() {
        FrameDecoder decoder = new FrameDecoder(MAX, 100);
        EmbeddedChannel paused = new EmbeddedChannel(decoder);
        try {
            ByteBuf whole = frame(3, new byte[100], false);
            paused.writeInbound(whole.readRetainedSlice(50));
            paused.config().setAutoRead(false); // the server stopped reading: the rest may be in its socket
            paused.advanceTimeBy(1, TimeUnit.SECONDS);
            paused.runScheduledPendingTasks();
            paused.checkException(); // not closed for a frame it did not let arrive
            assertThat(paused.isActive()).isTrue();
            paused.config().setAutoRead(true);
            decoder.readingResumed();
            paused.advanceTimeBy(1, TimeUnit.SECONDS);
            paused.runScheduledPendingTasks();
            assertThatThrownBy(paused::checkException)
                    .hasMessageContaining("frame timeout of 100 ms")
                    .hasMessageContaining("received 50 of 124 bytes");
            whole.release();
        } finally {
            paused.finishAndReleaseAll();
        }
    }

    @Test
    void unknownFlagBitsAreNamed() {
        ByteBuf b = frame(1, new byte[0], false);
        b.setByte(ProtocolConstants.OFFSET_FLAGS, 0x40);
        assertThatThrownBy(() -> ch.writeInbound(b)).hasMessageContaining("unknown flags 0x40");
    }

    @Test
    void anErrorBodyClaimingTwoGigabytesIsRefusedBeforeAnythingIsAllocated() {
        ByteBuf body =
                Unpooled.buffer().writeInt(-1).writeInt(Integer.MAX_VALUE).writeBytes(new byte[8]);
        Allocations.Measured m = Allocations.measure(() -> ErrorCodec.readError(body));
        body.release();
        assertThat(m.thrown())
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("2147483647 bytes with 8 left");
        assertThat(m.bytes()).isLessThan(1024 * 1024);
    }

    @Test
    void wrongMagicIsNamedAndRejectedFromTwoBytes() {
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'G', 'E'})))
                .isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("bad magic 0x4745")
                .hasMessageContaining("expected: 0x5852");
    }

    @Test
    void wrongVersionIsNamed() {
        ByteBuf b = frame(1, new byte[0], false);
        b.setByte(ProtocolConstants.OFFSET_VERSION, 9);
        assertThatThrownBy(() -> ch.writeInbound(b.readRetainedSlice(3)))
                .isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("unsupported protocol version 9 (expected: 1 to 2)");
        b.release();
    }

    @Test
    void oversizeLengthIsRefusedFromTheHeaderAlone() {
        ByteBuf header = frame(1, new byte[0], false);
        header.setInt(ProtocolConstants.OFFSET_BODY_LENGTH, MAX + 1);
        assertThatThrownBy(() -> ch.writeInbound(header))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("frame body of " + (MAX + 1) + " bytes exceeds the limit of " + MAX);
        // Everything after the bad header is discarded, not buffered.
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
        assertThat(ch.<Object>readInbound()).isNull();
    }

    @Test
    void negativeLengthIsRefused() {
        ByteBuf header = frame(1, new byte[0], false);
        header.setInt(ProtocolConstants.OFFSET_BODY_LENGTH, -1);
        assertThatThrownBy(() -> ch.writeInbound(header))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("4294967295 bytes");
    }

    @Test
    void unknownMessageTypeIsNamed() {
        ByteBuf b = frame(1, new byte[0], false);
        b.setByte(ProtocolConstants.OFFSET_TYPE, 77);
        assertThatThrownBy(() -> ch.writeInbound(b)).hasMessageContaining("unknown message type 77");
    }

    @Test
    void truncatedBodyIsReportedWhenTheConnectionCloses() {
        ByteBuf b = frame(1, new byte[100], false);
        ch.writeInbound(b.readRetainedSlice(headerPlus(40)));
        b.release();
        assertThat(ch.<Object>readInbound()).isNull();
        assertThatThrownBy(ch::finish)
                .isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("connection closed in the middle of a frame: received 64 of 124 bytes");
    }

    private static int headerPlus(int n) {
        return ProtocolConstants.HEADER_LENGTH + n;
    }

    @Test
    void gzipBombBecomesABodyErrorAndTheConnectionCarriesOn() throws Exception {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
            z.write(new byte[10 * MAX]); // 640 KiB of zeros: under 1 KiB compressed
        }
        assertThat(zipped.size()).isLessThan(MAX);
        ch.writeInbound(frame(5, zipped.toByteArray(), true));
        Frame f = ch.readInbound();
        assertThat(f.requestId()).isEqualTo(5);
        assertThat(f.isCompressed())
                .as("the decoder leaves decompressing to the reader")
                .isTrue();
        assertThat(f.decompress(compressors, MAX))
                .isEqualTo("body decompresses to more than the limit of " + MAX + " bytes");
        assertThat(f.body()).isNull();
        f.release();

        ch.writeInbound(frame(6, "next".getBytes(), false));
        Frame next = ch.readInbound();
        assertThat(next.requestId()).isEqualTo(6);
        next.release();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void corruptGzipIsABodyError() {
        ch.writeInbound(frame(9, new byte[] {1, 2, 3, 4, 5}, true));
        Frame f = ch.readInbound();
        assertThat(f.decompress(compressors, MAX)).startsWith("corrupt gzip body");
        f.release();
    }

    @Test
    void compressedBodyRoundTripsThroughTheEncoder() throws Exception {
        byte[] text = "x".repeat(5000).getBytes();
        ByteBuf encoded = RpcCodec.encodeResponse(
                ByteBufAllocator.DEFAULT,
                11,
                kryo(),
                new GzipCompressor(),
                0,
                ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH,
                new String(text));
        assertThat(encoded.getByte(ProtocolConstants.OFFSET_FLAGS)).isEqualTo((byte) ProtocolConstants.FLAG_COMPRESSED);
        assertThat(encoded.readableBytes()).isLessThan(200);
        ch.writeInbound(encoded);
        Frame f = ch.readInbound();
        assertThat(f.status()).isEqualTo(RpcStatus.OK.code());
        assertThat(f.decompress(compressors, MAX)).isNull();
        assertThat(RpcCodec.readResult(f.body(), kryo(), String.class, Serializer.NO_DEADLINE))
                .isEqualTo(new String(text));
        f.release();
    }

    @Test
    void encoderRefusesABodyOverTheSendersLimitAndLeavesNothingAllocated() {
        Serializer kryo = kryo();
        String big = "y".repeat(4000);
        assertThatThrownBy(() -> RpcCodec.encodeResponse(
                        ByteBufAllocator.DEFAULT, 12, kryo, IdentityCompressor.INSTANCE, 0, 1024, big))
                .isInstanceOf(RpcCodec.FrameTooLargeException.class)
                .hasMessageMatching("body of \\d+ bytes is over the frame limit of 1024 bytes");
        // Compressed, the same value fits: the limit applies to what goes on the wire.
        ByteBuf small = assertDoesNotThrowEncode(kryo, big);
        assertThat(small.getInt(ProtocolConstants.OFFSET_BODY_LENGTH)).isLessThan(1024);
        small.release();
    }

    private static Serializer kryo() {
        return new KryoSerializerProvider().create(ClassAllowList.withDefaults(), ReadLimits.defaults());
    }

    private static ByteBuf assertDoesNotThrowEncode(Serializer s, String value) {
        try {
            return RpcCodec.encodeResponse(ByteBufAllocator.DEFAULT, 13, s, new GzipCompressor(), 0, 1024, value);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
