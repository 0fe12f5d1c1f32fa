/**
 * Calling services: {@link io.xrpc.client.RpcClient} makes proxies for service interfaces, and
 * {@link io.xrpc.client.ClientInterceptor}s wrap their calls.
 */
package io.xrpc.client;
