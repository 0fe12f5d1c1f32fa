package io.xrpc.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.xrpc.benchmark.jmh.SerializerBenchmark;
import io.xrpc.benchmark.stress.Level;
import io.xrpc.benchmark.stress.StressTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Keeps the tools working in CI: one short JMH iteration and a two-second stress run. Asserts
 * that results were produced and no call failed; never how fast anything was.
 */
class BenchmarkSmokeTest {

    @Test
    void oneShortSerializerBenchmarkIterationProducesAResult() throws Exception {
        Options options = new OptionsBuilder()
                .include(SerializerBenchmark.class.getSimpleName() + ".serialize")
                .param("serializer", "kryo")
                .param("compressor", "none")
                .param("payload", "user")
                .param("api", "xrpc")
                .mode(Mode.Throughput)
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(300))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(1);
        assertThat(results.iterator().next().getPrimaryResult().getScore()).isPositive();
    }

    @Test
    @Timeout(300)
    void aTwoSecondStressRunWritesItsReportAndNoCallFails(@TempDir Path out) throws Exception {
        // Provider and callers each in a JVM of their own, as the figures in BENCHMARKS.md are taken,
        // the contenders taking turns in one-second slices. Two serializers: XRpc is measured once
        // with each, under its own name.
        List<Level> levels = StressTool.run(
                "--threads",
                "2",
                "--duration",
                "2s",
                "--slice",
                "1s",
                "--warmup",
                "500ms",
                "--max-warmup",
                "500ms",
                "--scenario",
                "getUser",
                "--provider",
                "fork",
                "--serializer",
                "kryo,hessian",
                "--out",
                out.toString(),
                "--quiet");
        assertThat(levels)
                .extracting(Level::contender)
                .containsExactlyInAnyOrder("xrpc-kryo", "xrpc-hessian", "raw-netty");
        for (Level l : levels) {
            assertThat(l.calls()).as(l.contender() + " calls").isPositive();
            // Two rounds, each with calls of its own; the level is their sum.
            assertThat(l.roundThroughputs())
                    .as(l.contender() + " rounds")
                    .hasSize(2)
                    .allMatch(t -> t > 0);
            assertThat(l.seconds()).as(l.contender() + " seconds").isBetween(1.9, 4.0);
            // Taken in turns: every contender's first slice began before any contender's second one.
            for (Level other : levels) {
                assertThat(l.roundStartMillis().get(0))
                        .as(l.contender() + " before " + other.contender() + "'s round 2")
                        .isLessThan(other.roundStartMillis().get(1));
            }
            assertThat(l.errorCount())
                    .as(l.contender() + " errors " + l.errors())
                    .isZero();
            // What each JVM spent per call was read: its CPU time, and its own allocation counter
            // (the provider's asked over its standard input).
            assertThat(l.providerCpuMicrosPerCall())
                    .as(l.contender() + " provider CPU")
                    .isPositive();
            assertThat(l.clientCpuMicrosPerCall())
                    .as(l.contender() + " client CPU")
                    .isPositive();
            assertThat(l.providerAllocBytesPerCall())
                    .as(l.contender() + " provider allocation")
                    .isPositive();
            assertThat(l.clientAllocBytesPerCall())
                    .as(l.contender() + " client allocation")
                    .isPositive();
        }
        assertThat(out.resolve("results.json")).isNotEmptyFile();
        assertThat(Files.readString(out.resolve("results.md")))
                .contains("| xrpc-kryo | getUser | 2 |")
                .contains("| xrpc-hessian | getUser | 2 |")
                // warm-up s, steady, OK, KO, calls/s, then the ratio to raw Netty with its rounds' range
                .containsPattern(
                        "\\| xrpc-kryo \\| getUser \\| 2 \\|( [^|]+ \\|){5} \\d+\\.\\d\\dx \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\) \\|");
        assertThat(out.resolve("results.png")).isNotEmptyFile();
    }

    @Test
    void theJmhTableShowsEachScoreWithItsErrorBarAndTheExtraTimeOfGoingThroughXrpc() throws Exception {
        String json = """
                [{"benchmark": "io.xrpc.benchmark.jmh.SerializerBenchmark.serialize", "mode": "avgt",
                  "params": {"serializer": "kryo", "compressor": "none", "payload": "user", "api": "xrpc"},
                  "primaryMetric": {"score": 120.0, "scoreError": 6.0, "scoreUnit": "ns/op"}},
                 {"benchmark": "io.xrpc.benchmark.jmh.SerializerBenchmark.serialize", "mode": "avgt",
                  "params": {"serializer": "kryo", "compressor": "none", "payload": "user", "api": "raw"},
                  "primaryMetric": {"score": 100.0, "scoreError": 3.0, "scoreUnit": "ns/op"}}]
                """;
        String table = JmhRatios.table(new ObjectMapper().readTree(json));
        assertThat(table)
                .contains("| xrpc ns/op | raw ns/op | SPI overhead |\n")
                .contains("| kryo | none | user | serialize | 120.0 ± 5% | 100.0 ± 3% | +20% |");

        // With the SPI read through streams only beside them, two more columns.
        String stream = json.replace(
                "}}]",
                "}}, "
                        + json.substring(json.lastIndexOf("{\"benchmark\""))
                                .replace("\"raw\"", "\"xrpc-stream\"")
                                .replace("100.0", "150.0")
                                .replace("3.0", "15.0"));
        assertThat(JmhRatios.table(new ObjectMapper().readTree(stream)))
                .contains("| SPI overhead | xrpc-stream ns/op | its overhead |")
                .contains("| kryo | none | user | serialize | 120.0 ± 5% | 100.0 ± 3% | +20% | 150.0 ± 10% | +50% |");
    }
}
