/**
 * The {@code protobuf} serializer and the protocol-buffer contract XRpc derives from a Java service
 * interface ({@link io.xrpc.serialize.protobuf.ProtoContract}): what gRPC callers of any language
 * send and read. Only the contract and the provider are public.
 */
package io.xrpc.serialize.protobuf;
