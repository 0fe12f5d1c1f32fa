/**
 * The {@code json} serializer: plain JSON read as declared types, the body of generic invocation.
 * Only its provider is public, for {@link java.util.ServiceLoader}.
 */
package io.xrpc.serialize.json;
