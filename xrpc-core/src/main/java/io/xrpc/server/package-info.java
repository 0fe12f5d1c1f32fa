/**
 * Serving services: {@link io.xrpc.server.RpcServer} exports implementations; the server's
 * policy for each request (deadline, authentication, arguments, statuses) runs through the
 * {@link io.xrpc.server.ServerInterceptor}s to the implementation, answering through the
 * transport's {@link io.xrpc.transport.ServerExchange}. {@link io.xrpc.server.Authenticator}
 * checks credentials before the arguments are read.
 */
package io.xrpc.server;
