package io.xrpc.serialize.fory;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/** {@code fory}: Apache Fory 1.6 behind the allow-list and the read limits ({@link ForySerializer}). */
public final class ForySerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return "fory";
    }

    @Override
    public String dependency() {
        return "org.apache.fory:fory-core";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new ForySerializer(allowList, limits);
    }
}
