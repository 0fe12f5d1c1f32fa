/** The {@code json} serializer: plain JSON read as declared types, the body of generic invocation. */
package io.xrpc.serialize.json;
