/**
 * The wire format: {@link io.xrpc.protocol.ProtocolConstants} holds the header layout (with a byte
 * diagram) and {@link io.xrpc.protocol.MessageType} the frame kinds. Netty-bound encoding and
 * decoding live in {@link io.xrpc.protocol.codec}.
 */
package io.xrpc.protocol;
