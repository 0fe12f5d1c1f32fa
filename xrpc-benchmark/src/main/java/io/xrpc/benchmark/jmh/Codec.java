package io.xrpc.benchmark.jmh;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.runtime.RuntimeSchema;
import io.xrpc.benchmark.model.Page;
import io.xrpc.benchmark.model.Response;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.model.User;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.fory.Fory;
import org.apache.fory.config.CompatibleMode;
import org.apache.fory.config.Language;
import org.apache.fory.io.ForyInputStream;
import org.apache.fory.memory.MemoryBuffer;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * One way of turning a payload into bytes: through XRpc's serializer SPI, or the library called
 * directly with the same settings (the baseline its overhead is measured against). Not
 * thread-safe: one per JMH thread.
 */
public interface Codec {
    void write(Object value, OutputStream out) throws IOException;

    Object read(InputStream in, Class<?> type) throws IOException;

    /** Writes into {@code sink}: in place where the library can, else through a stream over it. */
    default void write(Object value, ByteBuf sink) throws IOException {
        write(value, new ByteBufOutputStream(sink));
    }

    /** Reads the one message {@code in} holds: in place where the library can, else through a stream. */
    default Object read(ByteBuffer in, Class<?> type) throws IOException {
        return read(stream(in), type);
    }

    /** The bytes {@code in} holds as a stream whose {@code available()} is exact, as the SPI asks. */
    static InputStream stream(ByteBuffer in) {
        return new ByteBufInputStream(Unpooled.wrappedBuffer(in));
    }

    /**
     * The codec for {@code api} and {@code serializer}: {@code xrpc} is XRpc's SPI as XRpc calls
     * it (a frame's body handed over as a {@link ByteBuffer}), {@code xrpc-stream} the SPI read
     * through a stream only (as XRpc read every body before the buffer path), {@code raw} the
     * library called directly.
     */
    static Codec of(String api, String serializer) {
        if (api.equals("xrpc") || api.equals("xrpc-stream")) {
            Serializer s = SerializerRegistry.load(Scenarios.allowList(), ReadLimits.defaults())
                    .get(serializer);
            boolean buffers = api.equals("xrpc");
            return new Codec() {
                @Override
                public void write(Object value, OutputStream out) throws IOException {
                    s.writeResult(value, out);
                }

                @Override
                public Object read(InputStream in, Class<?> type) throws IOException {
                    return s.readResult(in, type, Serializer.NO_DEADLINE);
                }

                @Override
                public Object read(ByteBuffer in, Class<?> type) throws IOException {
                    return buffers ? s.readResult(in, type, Serializer.NO_DEADLINE) : read(stream(in), type);
                }
            };
        }
        return switch (serializer) {
            case "kryo" -> new RawKryo();
            case "hessian" -> new RawHessian();
            case "protostuff" -> new RawProtostuff();
            case "fory" -> new RawFory();
            default -> throw new IllegalArgumentException("serializer: " + serializer);
        };
    }

    /** A library baseline that lives in the {@code peers} Maven profile, with its dependencies. */
    private static Codec peer(String cls) {
        try {
            return (Codec) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(cls + " is not in this jar: build it with -Ppeers", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + cls, e);
        }
    }

    /** Kryo as XRpc configures it, one instance, no allow-list, no SPI. */
    final class RawKryo implements Codec {
        private final Kryo kryo = new Kryo();
        private final Output output = new Output(4096, -1);
        private final Input input = new Input(4096);

        RawKryo() {
            kryo.setRegistrationRequired(false);
            kryo.setReferences(false);
            kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        }

        @Override
        public void write(Object value, OutputStream out) {
            output.setOutputStream(out);
            kryo.writeClassAndObject(output, value);
            output.flush();
        }

        @Override
        public Object read(InputStream in, Class<?> type) {
            input.setInputStream(in);
            return kryo.readClassAndObject(input);
        }

        private final byte[] inputBuffer = input.getBuffer();

        @Override
        public void write(Object value, ByteBuf sink) {
            output.setOutputStream(null);
            output.reset();
            kryo.writeClassAndObject(output, value);
            sink.writeBytes(output.getBuffer(), 0, output.position());
        }

        @Override
        public Object read(ByteBuffer in, Class<?> type) throws IOException {
            if (!in.hasArray()) {
                return read(stream(in), type);
            }
            input.setBuffer(in.array(), in.arrayOffset() + in.position(), in.remaining());
            try {
                return kryo.readClassAndObject(input);
            } finally {
                input.setBuffer(inputBuffer);
            }
        }
    }

    /** Hessian 2 with one reused output, a fresh input per message as XRpc does. */
    final class RawHessian implements Codec {
        private final SerializerFactory factory = new SerializerFactory();
        private final Hessian2Output output = new Hessian2Output(null);

        RawHessian() {
            factory.setAllowNonSerializable(true);
            output.setSerializerFactory(factory);
        }

        @Override
        public void write(Object value, OutputStream out) throws IOException {
            output.init(out);
            output.writeObject(value);
            output.flushBuffer();
        }

        @Override
        public Object read(InputStream in, Class<?> type) throws IOException {
            Hessian2Input input = new Hessian2Input(in);
            input.setSerializerFactory(factory);
            return input.readObject(type);
        }
    }

    /** Protostuff with the payload's own runtime schema (XRpc wraps values in a holder). */
    final class RawProtostuff implements Codec {
        private final LinkedBuffer buffer = LinkedBuffer.allocate(512);

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void write(Object value, OutputStream out) throws IOException {
            Schema schema = RuntimeSchema.getSchema(value.getClass());
            try {
                ProtostuffIOUtil.writeTo(out, value, schema, buffer);
            } finally {
                buffer.clear();
            }
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Object read(InputStream in, Class<?> type) throws IOException {
            Schema schema = RuntimeSchema.getSchema(type);
            Object message = schema.newMessage();
            try {
                ProtostuffIOUtil.mergeFrom(in, message, schema, buffer);
            } finally {
                buffer.clear();
            }
            return message;
        }
    }

    /** The class a payload is read back as. */
    static Class<?> typeOf(String payload) {
        return switch (payload) {
            case "response" -> Response.class;
            case "user" -> User.class;
            case "page" -> Page.class;
            default -> throw new IllegalArgumentException("payload: " + payload);
        };
    }

    /**
     * Fory as XRpc configures it (Java mode, schema-consistent, no reference tracking, classes
     * not registered), one instance, no allow-list, no guards, no SPI.
     */
    final class RawFory implements Codec {
        private final Fory fory = Fory.builder()
                .withLanguage(Language.JAVA)
                .withCompatibleMode(CompatibleMode.SCHEMA_CONSISTENT)
                .requireClassRegistration(false)
                .suppressClassRegistrationWarnings(true)
                .withRefTracking(false)
                .withAsyncCompilation(false)
                .build();

        @Override
        public void write(Object value, OutputStream out) {
            fory.serialize(out, value);
        }

        @Override
        public Object read(InputStream in, Class<?> type) {
            return fory.deserialize(new ForyInputStream(in));
        }

        private final MemoryBuffer output = MemoryBuffer.newHeapBuffer(4096);
        private final MemoryBuffer input = MemoryBuffer.newHeapBuffer(0);

        @Override
        public void write(Object value, ByteBuf sink) {
            output.writerIndex(0);
            fory.serialize(output, value);
            sink.writeBytes(output.getHeapMemory(), 0, output.writerIndex());
        }

        @Override
        public Object read(ByteBuffer in, Class<?> type) {
            ByteBuffer bytes = in.slice();
            input.initByteBuffer(bytes, bytes.remaining());
            input.readerIndex(0);
            return fory.deserialize(input);
        }
    }
}
