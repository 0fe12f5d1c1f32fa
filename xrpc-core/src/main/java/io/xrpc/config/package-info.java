/**
 * Configuration values: {@link io.xrpc.config.ServiceOptions} for exporting and
 * {@link io.xrpc.config.ReferenceOptions} for calling a service, and the connection settings both
 * sides share, {@link io.xrpc.config.TransportConfig} with its {@link io.xrpc.config.TlsConfig}.
 * Client and server wide settings are set on {@link io.xrpc.client.RpcClient.Builder} and
 * {@link io.xrpc.server.RpcServer.Builder}.
 */
package io.xrpc.config;
