/**
 * Netty-bound encoding and decoding of the wire format, not API:
 * {@link io.xrpc.protocol.codec.FrameDecoder} cuts bytes into
 * {@link io.xrpc.protocol.codec.Frame}s, {@link io.xrpc.protocol.codec.RpcCodec} writes frames
 * and reads request and response bodies, {@link io.xrpc.protocol.codec.ErrorCodec} error answers
 * and GOAWAYs. Public because the Netty transport is another package; may change without notice.
 */
package io.xrpc.protocol.codec;
