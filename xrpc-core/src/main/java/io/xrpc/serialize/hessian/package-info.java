/**
 * The {@code hessian} serializer, chosen by name; see its {@code Serializer} class for how it is
 * kept thread-safe and safe to read. Only its provider is public, for {@link java.util.ServiceLoader}.
 */
package io.xrpc.serialize.hessian;
