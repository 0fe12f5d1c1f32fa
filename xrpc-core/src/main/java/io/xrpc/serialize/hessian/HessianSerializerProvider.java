package io.xrpc.serialize.hessian;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/** Provides {@link HessianSerializer} under the name {@code hessian}. */
public final class HessianSerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return "hessian";
    }

    @Override
    public String dependency() {
        return "org.apache.dubbo:hessian-lite";
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new HessianSerializer(allowList, limits);
    }
}
