package io.xrpc.serialize.protobuf;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;

/**
 * {@code protobuf}: protocol buffers laid out as the contract derived from the service interface,
 * the body of gRPC calls ({@link ProtobufSerializer}). Needs no library: XRpc writes and reads the
 * wire format itself.
 */
public final class ProtobufSerializerProvider implements SerializerProvider {
    @Override
    public String name() {
        return ProtobufSerializer.NAME;
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new ProtobufSerializer(allowList, limits);
    }
}
