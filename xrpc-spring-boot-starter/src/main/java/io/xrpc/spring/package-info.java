/**
 * The annotations of the XRpc Spring Boot starter: {@link io.xrpc.spring.RpcService} and
 * {@link io.xrpc.spring.RpcReference}. Configuration: {@code io.xrpc.spring.autoconfigure}.
 */
package io.xrpc.spring;
