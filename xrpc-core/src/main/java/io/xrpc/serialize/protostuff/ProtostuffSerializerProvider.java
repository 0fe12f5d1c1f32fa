package io.xrpc.serialize.protostuff;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/** Provides {@link ProtostuffSerializer} under the name {@code protostuff}. */
public final class ProtostuffSerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return "protostuff";
    }

    @Override
    public String dependency() {
        return "io.protostuff:protostuff-core and io.protostuff:protostuff-runtime";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new ProtostuffSerializer(allowList, limits);
    }
}
