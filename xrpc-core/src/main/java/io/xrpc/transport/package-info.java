/**
 * The seam between XRpc and the network: {@link io.xrpc.transport.ClientTransport},
 * {@link io.xrpc.transport.ServerTransport} and the {@link io.xrpc.transport.RequestHandler} a
 * server transport calls. The client and server packages program against these; the Netty
 * implementation lives in {@code io.xrpc.transport.netty}, the only package besides
 * {@code io.xrpc.protocol.codec} that may use Netty (an ArchUnit test checks it).
 */
package io.xrpc.transport;
