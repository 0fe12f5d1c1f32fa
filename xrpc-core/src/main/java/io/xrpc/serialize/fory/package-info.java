/**
 * The Apache Fory serializer ({@code fory}), chosen by name and guarded as the others are. Only its
 * provider is public, for {@link java.util.ServiceLoader}.
 */
package io.xrpc.serialize.fory;
