package io.xrpc.benchmark.demo;

/** One order of the demo's {@link Orders}. */
public record Order(long id, String sku, int quantity) {}
