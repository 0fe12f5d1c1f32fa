package io.xrpc.spring.custom;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.testing.ForwardingSerializer;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application's own serializer, added as the README says: a SerializerProvider listed in
 * META-INF/services. It is kryo underneath, with a name and id of its own, and counts its writes
 * so a test can see it was the one used.
 */
public final class ShoutingSerializerProvider implements SerializerProvider {
    public static final AtomicInteger WRITES = new AtomicInteger();

    @Override
    public String name() {
        return "shouting";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new ForwardingSerializer("shouting", (byte) 77, new KryoSerializerProvider().create(allowList, limits)) {
            @Override
            public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
                WRITES.incrementAndGet();
                delegate.writeArguments(arguments, out);
            }

            @Override
            public void writeResult(Object value, OutputStream out) throws IOException {
                WRITES.incrementAndGet();
                delegate.writeResult(value, out);
            }
        };
    }
}
