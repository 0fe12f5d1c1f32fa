/**
 * Serializer SPI ({@link io.xrpc.serialize.SerializerProvider}, {@link io.xrpc.serialize.Serializer}),
 * the per-endpoint {@link io.xrpc.serialize.SerializerRegistry} and the
 * {@link io.xrpc.serialize.ClassAllowList} every serializer checks before constructing a class.
 * Built-ins: {@code kryo}, {@code hessian}, {@code protostuff} in the sub-packages.
 */
package io.xrpc.serialize;
