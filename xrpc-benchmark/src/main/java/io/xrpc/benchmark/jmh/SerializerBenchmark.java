package io.xrpc.benchmark.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Serialize, deserialize and round trip of each payload through each serializer, with and without
 * gzip, through XRpc's SPI ({@code api=xrpc}) and through the library directly ({@code api=raw}),
 * in the same run so their ratio is the SPI's overhead. State is reused the way a server reuses
 * it: one serializer per thread, one output buffer, nothing built per operation but the streams.
 * Without a compressor each side reads and writes memory as it best can: XRpc's SPI is handed a
 * {@code ByteBuffer} as a frame's body is, and the library is called on its own buffers.
 */
@State(Scope.Thread)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SerializerBenchmark {
    @Param({"kryo", "hessian", "protostuff", "fory"})
    public String serializer;

    @Param({"none", "gzip"})
    public String compressor;

    @Param({"response", "user", "page"})
    public String payload;

    /** {@code xrpc}, {@code raw}, or {@code xrpc-stream} (the SPI read through a stream only). */
    @Param({"xrpc", "raw"})
    public String api;

    private Codec codec;
    private Compressor compression;
    private Object value;
    private Class<?> type;
    private ByteBuf sink;
    private byte[] encoded;

    @Setup
    public void setUp() throws IOException {
        codec = Codec.of(api, serializer);
        compression = CompressorRegistry.load().get(compressor);
        value = Payloads.byName(payload);
        type = Codec.typeOf(payload);
        sink = Unpooled.buffer(64 * 1024);
        write(value);
        encoded = new byte[sink.readableBytes()];
        sink.getBytes(0, encoded);
        // What is read back must write the same bytes: a codec that reads wrong is not measured.
        write(read());
        byte[] again = new byte[sink.readableBytes()];
        sink.getBytes(0, again);
        if (!Arrays.equals(encoded, again)) {
            throw new IllegalStateException(api + " " + serializer + " does not read back what it wrote");
        }
    }

    /** Uncompressed, a codec writes into the buffer and reads the bytes in place when it can, as XRpc does. */
    private void write(Object v) throws IOException {
        sink.clear();
        if (compressor.equals("none")) {
            codec.write(v, sink);
            return;
        }
        try (OutputStream out = compression.compress(new ByteBufOutputStream(sink))) {
            codec.write(v, out);
        }
    }

    private Object read() throws IOException {
        if (compressor.equals("none")) {
            return codec.read(ByteBuffer.wrap(encoded), type);
        }
        // Inflated whole first, as XRpc inflates a frame's body before reading it: a serializer is
        // promised a message whose available() is exact, which an inflating stream's is not.
        try (InputStream in = compression.decompress(new ByteArrayInputStream(encoded))) {
            return codec.read(ByteBuffer.wrap(in.readAllBytes()), type);
        }
    }

    @Benchmark
    public int serialize() throws IOException {
        write(value);
        return sink.writerIndex();
    }

    @Benchmark
    public Object deserialize() throws IOException {
        return read();
    }

    @Benchmark
    public void roundTrip(Blackhole bh) throws IOException {
        write(value);
        bh.consume(sink.writerIndex());
        bh.consume(read());
    }
}
