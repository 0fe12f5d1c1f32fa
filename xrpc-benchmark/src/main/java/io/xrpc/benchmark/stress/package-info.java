/** The invoke stress tool ({@link io.xrpc.benchmark.stress.StressTool}) and its raw-Netty baseline. */
package io.xrpc.benchmark.stress;
