/**
 * The seam between XRpc and the network, not API (an application never calls it): what a client
 * transport does ({@link io.xrpc.transport.ClientTransport} and its {@code Settings}), what a
 * server transport does ({@link io.xrpc.transport.ServerTransport}), where it finds a request's
 * route ({@link io.xrpc.transport.Routes}) and whom it hands the request to
 * ({@link io.xrpc.transport.RequestHandler}, answered through a
 * {@link io.xrpc.transport.ServerExchange}). The client and server packages program against these;
 * the Netty implementation lives in {@code io.xrpc.transport.netty}, the only package besides
 * {@code io.xrpc.protocol.codec} that may use Netty (an ArchUnit test checks it). Public because
 * another package of XRpc implements it; may change without notice.
 */
package io.xrpc.transport;
