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
}
