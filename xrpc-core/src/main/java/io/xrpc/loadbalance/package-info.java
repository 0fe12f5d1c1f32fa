/**
 * Load balancer SPI ({@link io.xrpc.loadbalance.LoadBalancerProvider}) and the built-in
 * strategies: {@code random}, {@code round-robin}, {@code least-active}, {@code consistent-hash}.
 */
package io.xrpc.loadbalance;
