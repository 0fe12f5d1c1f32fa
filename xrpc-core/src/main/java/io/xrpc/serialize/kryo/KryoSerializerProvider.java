package io.xrpc.serialize.kryo;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/** Provides {@link KryoSerializer} under the name {@code kryo}. */
public final class KryoSerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return "kryo";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new KryoSerializer(allowList, limits);
    }
}
