package io.xrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.compress.GzipCompressor;
import io.xrpc.protocol.WireStrings;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.fory.ForySerializerProvider;
import io.xrpc.serialize.hessian.HessianSerializerProvider;
import io.xrpc.serialize.json.JsonSerializerProvider;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.serialize.protostuff.ProtostuffSerializerProvider;
import io.xrpc.testing.Allocations;
import io.xrpc.testing.Dtos;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Coverage-guided fuzz targets (Jazzer) for what a peer controls: the byte stream the frame
 * decoder cuts, and the bodies each serializer reads as arguments and as results. The only
 * outcomes allowed are a value or one of XRpc's refusals; an Error, another exception, or an
 * allocation far beyond the input's size is a finding.
 *
 * <p>A normal test run replays the inputs kept under
 * {@code src/test/resources/io/xrpc/fuzz/PayloadFuzzTestInputs/<target>/}. To fuzz one target for
 * longer: {@code JAZZER_FUZZ=1 mvn -pl xrpc-core test -Dtest=PayloadFuzzTest#kryoArguments
 * -Djunit.jupiter.execution.timeout.default=1h}; it runs for {@link #FUZZ_FOR}
 * (Jazzer 0.24 takes the duration only from the annotation). New findings are written to that
 * directory as inputs that then replay in every run. Jazzer instruments only this project's
 * classes unless told: to fuzz a library's reading too, add {@code JAZZER_INSTRUMENT='io.xrpc.**,tools.jackson.**'}
 * (json) or the library's package.
 */
class PayloadFuzzTest {
    /** How long one fuzzing run lasts when {@code JAZZER_FUZZ} is set; raise it to fuzz longer. */
    static final String FUZZ_FOR = "5m";

    /** Bytes a read may allocate: a generous multiple of the input, plus room for first-use warm-up. */
    private static long allowance(int inputLength) {
        return 16L * 1024 * 1024 + 256L * inputLength;
    }

    private static final ClassAllowList ALLOW = ClassAllowList.withDefaults().allowTypesOf(Shapes.class);
    private static final ReadLimits LIMITS = ReadLimits.of(100_000, 64);
    private static final Serializer KRYO = new KryoSerializerProvider().create(ALLOW, LIMITS);
    private static final Serializer HESSIAN = new HessianSerializerProvider().create(ALLOW, LIMITS);
    private static final Serializer PROTOSTUFF = new ProtostuffSerializerProvider().create(ALLOW, LIMITS);
    private static final Serializer FORY = new ForySerializerProvider().create(ALLOW, LIMITS);
    private static final Serializer JSON = new JsonSerializerProvider().create(ALLOW, LIMITS);
    private static final Class<?>[] PARAMETERS = {String.class, int.class, Dtos.Person.class, Object.class};

    /** The types a fuzzed payload may build, besides the JDK defaults. */
    public interface Shapes {
        Dtos.Person person(Dtos.Person p, Object any, int[] numbers, List<Dtos.Address> addresses);
    }

    /** As a stream, and from direct memory as a frame's body is read (fory reads that in place). */
    private static void arguments(Serializer s, byte[] data) {
        check(s, data, () -> s.readArguments(new ByteArrayInputStream(data), PARAMETERS, Serializer.NO_DEADLINE));
        ByteBuffer direct = direct(data);
        check(s, data, () -> s.readArguments(direct, PARAMETERS, Serializer.NO_DEADLINE));
    }

    private static void result(Serializer s, byte[] data) {
        check(s, data, () -> s.readResult(new ByteArrayInputStream(data), Object.class, Serializer.NO_DEADLINE));
        ByteBuffer direct = direct(data);
        check(s, data, () -> s.readResult(direct, Object.class, Serializer.NO_DEADLINE));
    }

    private static ByteBuffer direct(byte[] data) {
        return ByteBuffer.allocateDirect(data.length).put(data).flip();
    }

    private static void check(Serializer s, byte[] data, Callable<?> read) {
        warmUp(s);
        // The same input once unmeasured: the classes its path loads (an error's, say) are loaded,
        // and when fuzzing instrumented, before the read that is measured. What a message costs is
        // the second read; what a library keeps per class is bounded by the classes there are.
        Allocations.measure(read);
        Allocations.Measured m = Allocations.measure(read);
        Throwable t = m.thrown();
        if (t != null
                && !(t instanceof SerializationException
                        || t instanceof ClassNotAllowedException
                        || t instanceof PayloadLimitException)) {
            throw new AssertionError(s.name() + " read " + data.length + " bytes and threw " + t, t);
        }
        assertThat(m.bytes())
                .as(s.name() + ": bytes allocated reading " + data.length + " bytes")
                .isLessThan(allowance(data.length));
    }

    /** A valid read first, so the thread's serializer state and classes are in place before measuring. */
    private static void warmUp(Serializer s) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Object[] args = {"name", 7, new Dtos.Person(), List.of(1, 2)};
            s.writeArguments(args, out);
            s.readArguments(new ByteArrayInputStream(out.toByteArray()), PARAMETERS, Serializer.NO_DEADLINE);
            out.reset();
            s.writeResult(args[3], out);
            s.readResult(new ByteArrayInputStream(out.toByteArray()), Object.class, Serializer.NO_DEADLINE);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void kryoArguments(byte[] data) {
        arguments(KRYO, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void kryoResult(byte[] data) {
        result(KRYO, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void hessianArguments(byte[] data) {
        arguments(HESSIAN, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void hessianResult(byte[] data) {
        result(HESSIAN, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void protostuffArguments(byte[] data) {
        arguments(PROTOSTUFF, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void protostuffResult(byte[] data) {
        result(PROTOSTUFF, data);
    }

    private static final CompressorRegistry COMPRESSORS = CompressorRegistry.load();

    /** The frame decoder on any byte stream, then every frame's body through decompression and the head reader. */
    @FuzzTest(maxDuration = FUZZ_FOR)
    void foryArguments(byte[] data) {
        arguments(FORY, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void foryResult(byte[] data) {
        result(FORY, data);
    }

    /** json: what a generic caller sends, read as the declared types. */
    @FuzzTest(maxDuration = FUZZ_FOR)
    void jsonArguments(byte[] data) {
        arguments(JSON, data);
    }

    private static final Class<?>[] NUMBERS = {
        BigInteger.class, BigDecimal.class, long.class, double.class, Instant.class, Duration.class
    };

    /** json numbers read as every kind of numeric type: none may grow past its text (1E+100000). */
    @FuzzTest(maxDuration = FUZZ_FOR)
    void jsonNumbers(byte[] data) {
        check(JSON, data, () -> JSON.readArguments(new ByteArrayInputStream(data), NUMBERS, Serializer.NO_DEADLINE));
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void jsonResult(byte[] data) {
        result(JSON, data);
    }

    @FuzzTest(maxDuration = FUZZ_FOR)
    void frames(byte[] data) {
        if (!framesWarm) {
            framesWarm = true;
            decodeAll(warmUpFrame());
        }
        Allocations.Measured m = Allocations.measure(() -> {
            decodeAll(data);
            return null;
        });
        if (m.thrown() != null) {
            throw new AssertionError("frames of " + data.length + " bytes: " + m.thrown(), m.thrown());
        }
        assertThat(m.bytes()).isLessThan(allowance(data.length));
    }

    private static boolean framesWarm;

    /** A gzip request of a real client, so decompression's first-use costs come before measuring. */
    private static byte[] warmUpFrame() {
        try {
            ByteBuf f = RpcCodec.encodeRequest(
                    ByteBufAllocator.DEFAULT,
                    1,
                    1000,
                    RpcCodec.clockMillis(),
                    KRYO,
                    new GzipCompressor(),
                    0,
                    1 << 20,
                    WireStrings.shortStringBytes("a.B"),
                    WireStrings.shortStringBytes("m()"),
                    Map.of("k", "v"),
                    new Object[] {"x".repeat(100)});
            byte[] b = new byte[f.readableBytes()];
            f.readBytes(b);
            f.release();
            return b;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Cuts frames from {@code data}, then decompresses each body and reads its request head. */
    private static void decodeAll(byte[] data) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(64 * 1024));
        try {
            try {
                ch.writeInbound(Unpooled.wrappedBuffer(data));
            } catch (DecoderException expected) {
                // a framing error closes the connection: an allowed outcome
            }
            Frame f;
            while ((f = ch.readInbound()) != null) {
                try {
                    if (f.decompress(COMPRESSORS, 64 * 1024) == null && f.body() != null) {
                        try {
                            RpcCodec.readRequestHead(f.body());
                        } catch (IndexOutOfBoundsException malformed) {
                            // answered SERIALIZATION_ERROR by the server: an allowed outcome
                        }
                    }
                } finally {
                    f.release();
                }
            }
        } finally {
            try {
                ch.finishAndReleaseAll();
            } catch (DecoderException truncated) {
                // the stream ended inside a frame: an allowed outcome
            }
        }
    }
}
