/**
 * Everything Netty, not API: event loops (epoll or NIO), the server's accept and per-connection
 * handlers (the handler, and beside it each policy of a connection: {@code RequestRouter},
 * {@code Admission}, {@code ResponsePump}, {@code ConnectionAuthentication},
 * {@code MalformedStrikes}), the client's connection pools, pending-call bookkeeping and the write
 * batching both share. Start at {@link io.xrpc.transport.netty.NettyServerTransport} and
 * {@link io.xrpc.transport.netty.NettyClientTransport}, which {@code RpcServer} and
 * {@code RpcClient} build; may change without notice.
 */
package io.xrpc.transport.netty;
