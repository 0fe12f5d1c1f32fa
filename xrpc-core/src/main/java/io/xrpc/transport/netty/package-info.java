/**
 * Everything Netty: event loops (epoll or NIO), the server's accept and per-connection handlers,
 * the client's connection pools, pending-call bookkeeping and the write batching both share.
 * Start at {@link io.xrpc.transport.netty.NettyServerTransport} and
 * {@link io.xrpc.transport.netty.NettyClientTransport}.
 */
package io.xrpc.transport.netty;
