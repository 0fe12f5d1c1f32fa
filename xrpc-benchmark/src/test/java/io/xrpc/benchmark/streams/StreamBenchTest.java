package io.xrpc.benchmark.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.protocol.ProtocolConstants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream benchmark in its short form, as CI runs it: every scenario of XRpc beside raw Netty,
 * providers forked, each stream checked whole (the tool fails on a message short or a byte
 * uploaded wrong), and the idle caller's provider held to its window. Its speeds are not judged
 * here: docs/BENCHMARKS.md has a full run's.
 */
@Timeout(300)
class StreamBenchTest {
    @Test
    void shortRunOfEveryScenarioAndTheIdleCaller(@TempDir Path out) throws Exception {
        String report = new StreamBench(new String[] {
                    "--contenders", "xrpc,raw-netty",
                    "--messages", "20000",
                    "--upload-messages", "5000",
                    "--rounds", "1",
                    "--idle-seconds", "2",
                    "--out", out.toString()
                })
                .run();
        assertThat(Files.readString(out.resolve("results.md"))).isEqualTo(report);
        for (String scenario : List.of("server-stream", "upload", "echo")) {
            assertThat(report).contains("| " + scenario + " | messages/s |");
        }
        Matcher rows = Pattern.compile("\\| (xrpc|raw-netty) \\| ([\\d,]+) \\|").matcher(report);
        int n = 0;
        while (rows.find()) {
            assertThat(Long.parseLong(rows.group(2).replace(",", ""))).isPositive();
            n++;
        }
        assertThat(n).isEqualTo(6);

        // The caller took 10 ticks of an endless stream: the provider made at most its window.
        Matcher idle = Pattern.compile("\\| (\\d+) \\| (\\d+) \\| [\\d.]+ \\| [\\d.]+ \\|")
                .matcher(report);
        int seconds = 0;
        while (idle.find()) {
            assertThat(Long.parseLong(idle.group(2))).isLessThanOrEqualTo(ProtocolConstants.INITIAL_STREAM_MESSAGES);
            seconds++;
        }
        assertThat(seconds).isEqualTo(2);
        assertThat(report).contains("The caller received 10 ticks.");
    }
}
