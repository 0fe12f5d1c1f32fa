package io.xrpc.benchmark.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.model.User;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.WireStrings;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** One whole request frame (createUser) encoded by the codec, then framed, decoded and read back. */
@State(Scope.Thread)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FrameBenchmark {
    @Param({"kryo", "hessian", "protostuff", "fory"})
    public String serializer;

    @Param({"none", "gzip"})
    public String compressor;

    private Serializer ser;
    private Compressor comp;
    private CompressorRegistry compressors;
    private EmbeddedChannel channel;
    private final byte[] service = WireStrings.shortStringBytes("io.xrpc.benchmark.model.UserService");
    private final byte[] method = WireStrings.shortStringBytes("createUser(io.xrpc.benchmark.model.User)");
    private final Object[] args = {Payloads.user(1)};
    private final Class<?>[] types = {User.class};
    private long id;

    @Setup
    public void setUp() {
        ser = SerializerRegistry.load(Scenarios.allowList(), ReadLimits.defaults())
                .get(serializer);
        compressors = CompressorRegistry.load();
        comp = compressors.get(compressor);
        channel = new EmbeddedChannel(new FrameDecoder(ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH));
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
    }

    @Benchmark
    public Object encodeAndDecode() throws IOException {
        ByteBuf frame = RpcCodec.encodeRequest(
                ByteBufAllocator.DEFAULT,
                ++id,
                3000,
                RpcCodec.clockMillis(),
                ser,
                comp,
                0,
                ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH,
                service,
                method,
                null,
                args);
        channel.writeInbound(frame);
        Frame f = channel.readInbound();
        try {
            f.decompress(compressors, ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH);
            RpcCodec.readRequestHead(f.body());
            return RpcCodec.readArguments(f.body(), ser, types, Serializer.NO_DEADLINE)[0];
        } finally {
            f.release();
        }
    }
}
