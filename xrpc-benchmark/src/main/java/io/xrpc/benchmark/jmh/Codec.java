package io.xrpc.benchmark.jmh;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.runtime.RuntimeSchema;
import io.xrpc.benchmark.model.Page;
import io.xrpc.benchmark.model.Response;
import io.xrpc.benchmark.model.User;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * One way of turning a payload into bytes: through XRpc's serializer SPI, or the library called
 * directly with the same settings (the baseline its overhead is measured against). Not
 * thread-safe: one per JMH thread.
 */
public interface Codec {
    void write(Object value, OutputStream out) throws IOException;

    Object read(InputStream in, Class<?> type) throws IOException;

    /**
     * The codec for {@code api} ({@code xrpc} or {@code raw}) and {@code serializer}.
     */
    static Codec of(String api, String serializer) {
        if (api.equals("xrpc")) {
            Serializer s = SerializerRegistry.load(Scenarios.allowList(), ReadLimits.defaults()).get(serializer);
            return new Codec() {
                @Override
                public void write(Object value, OutputStream out) throws IOException {
                    s.writeResult(value, out);
                }

                @Override
                public Object read(InputStream in, Class<?> type) throws IOException {
                    return s.readResult(in, type, Serializer.NO_DEADLINE);
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
        private final org.apache.fory.Fory fory = org.apache.fory.Fory.builder()
                .withLanguage(org.apache.fory.config.Language.JAVA)
                .withCompatibleMode(org.apache.fory.config.CompatibleMode.SCHEMA_CONSISTENT)
                .requireClassRegistration(false).suppressClassRegistrationWarnings(true)
                .withRefTracking(false).withAsyncCompilation(false).build();

        @Override
        public void write(Object value, OutputStream out) {
            fory.serialize(out, value);
        }

        @Override
        public Object read(InputStream in, Class<?> type) {
            return fory.deserialize(new org.apache.fory.io.ForyInputStream(in));
        }
    }
}
