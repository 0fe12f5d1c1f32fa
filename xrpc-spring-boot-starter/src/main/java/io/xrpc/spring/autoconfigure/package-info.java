/**
 * Spring Boot auto-configuration of XRpc; start at
 * {@link io.xrpc.spring.autoconfigure.XrpcAutoConfiguration} and the {@code xrpc.*} properties in
 * {@link io.xrpc.spring.autoconfigure.XrpcProperties}.
 */
package io.xrpc.spring.autoconfigure;
