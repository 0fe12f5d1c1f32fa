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
        write();
        encoded = new byte[sink.readableBytes()];
        sink.getBytes(0, encoded);
    }

    private void write() throws IOException {
        sink.clear();
        try (OutputStream out = compression.compress(new ByteBufOutputStream(sink))) {
            codec.write(value, out);
        }
    }

    private Object read() throws IOException {
        try (InputStream in = compression.decompress(new ByteArrayInputStream(encoded))) {
            return codec.read(in, type);
        }
    }

    @Benchmark
    public int serialize() throws IOException {
        write();
        return sink.writerIndex();
    }

    @Benchmark
    public Object deserialize() throws IOException {
        return read();
    }

    @Benchmark
    public void roundTrip(Blackhole bh) throws IOException {
        write();
        bh.consume(sink.writerIndex());
        bh.consume(read());
    }
}
