/**
 * Netty-bound encoding and decoding of the wire format: {@link io.xrpc.protocol.codec.FrameDecoder}
 * cuts bytes into {@link io.xrpc.protocol.codec.Frame}s, {@link io.xrpc.protocol.codec.RpcCodec}
 * writes frames and reads bodies.
 */
package io.xrpc.protocol.codec;
