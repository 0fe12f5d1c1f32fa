/** JMH benchmarks: {@link io.xrpc.benchmark.jmh.SerializerBenchmark} and {@link io.xrpc.benchmark.jmh.FrameBenchmark}. */
package io.xrpc.benchmark.jmh;
