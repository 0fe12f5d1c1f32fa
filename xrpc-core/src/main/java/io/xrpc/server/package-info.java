/**
 * Serving services: {@link io.xrpc.server.RpcServer} exports implementations, the
 * {@link io.xrpc.server.ServiceDispatcher} routes calls to them through
 * {@link io.xrpc.server.ServerInterceptor}s.
 */
package io.xrpc.server;
