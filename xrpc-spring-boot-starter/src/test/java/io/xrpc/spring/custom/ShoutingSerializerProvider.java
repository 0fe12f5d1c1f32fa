package io.xrpc.spring.custom;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;
import io.xrpc.serialize.kryo.KryoSerializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * An application's own serializer, added as the README says: a SerializerProvider listed in
 * META-INF/services. It is kryo underneath, with a name and id of its own, and counts its writes
 * so a test can see it was the one used.
 */
public final class ShoutingSerializerProvider implements SerializerProvider {
    public static final java.util.concurrent.atomic.AtomicInteger WRITES = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public String name() {
        return "shouting";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        KryoSerializer kryo = new KryoSerializer(allowList, limits);
        return new Serializer() {
            @Override
            public String name() {
                return "shouting";
            }

            @Override
            public byte id() {
                return 77;
            }

            @Override
            public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
                WRITES.incrementAndGet();
                kryo.writeArguments(arguments, out);
            }

            @Override
            public Object[] readArguments(InputStream in, Class<?>[] types, long deadlineNanos) throws IOException {
                return kryo.readArguments(in, types, deadlineNanos);
            }

            @Override
            public void writeResult(Object value, OutputStream out) throws IOException {
                WRITES.incrementAndGet();
                kryo.writeResult(value, out);
            }

            @Override
            public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
                return kryo.readResult(in, type, deadlineNanos);
            }
        };
    }
}
