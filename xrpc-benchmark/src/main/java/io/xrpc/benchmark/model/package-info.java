/** Payloads and the rpc-benchmark style user service every benchmark uses. */
package io.xrpc.benchmark.model;
