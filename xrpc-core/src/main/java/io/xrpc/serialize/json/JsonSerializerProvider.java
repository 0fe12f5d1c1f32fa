package io.xrpc.serialize.json;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/** {@code json}: plain JSON read as declared types, the body of generic invocation ({@link JsonSerializer}). */
public final class JsonSerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return JsonSerializer.NAME;
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new JsonSerializer(allowList, limits);
    }
}
