package io.xrpc.serialize;

import io.xrpc.common.Extension;

/**
 * Creates a {@link Serializer}; found with {@link java.util.ServiceLoader} (list implementations in
 * {@code META-INF/services/io.xrpc.serialize.SerializerProvider}).
 *
 * <p>Its {@link #name()} is the name configuration uses, such as {@code kryo}. Where two
 * providers have one name, the higher {@link #priority()} wins, so an application can replace a
 * built-in serializer without removing it.
 */
public interface SerializerProvider extends Extension {

    /**
     * A new serializer that instantiates only what {@code allowList} allows and builds no more per
     * message than {@code limits} allow (see {@link Serializer} for the whole reading contract).
     */
    Serializer create(ClassAllowList allowList, ReadLimits limits);

    /**
     * The Maven coordinates of the library this serializer needs beyond xrpc-core's own, such as
     * {@code org.apache.dubbo:hessian-lite}, or {@code null}: xrpc-core depends on the libraries of
     * its default serializers only (kryo, json), so that an application pulls in what it uses.
     * When the library is missing, choosing this serializer fails naming it.
     */
    default String dependency() {
        return null;
    }
}
