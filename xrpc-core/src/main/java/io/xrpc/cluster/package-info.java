/**
 * What a reference does when a call fails on one provider: {@link io.xrpc.cluster.Cluster} SPI and
 * the built-ins {@code failover} (default), {@code failfast} and {@code failsafe}.
 */
package io.xrpc.cluster;
