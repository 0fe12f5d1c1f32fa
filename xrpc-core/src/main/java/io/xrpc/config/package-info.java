/**
 * Immutable per-service options: {@link io.xrpc.config.ServiceOptions} for exporting and
 * {@link io.xrpc.config.ReferenceOptions} for calling. Client and server wide settings live on
 * {@link io.xrpc.client.RpcClient.Builder} and {@link io.xrpc.server.RpcServer.Builder}.
 */
package io.xrpc.config;
