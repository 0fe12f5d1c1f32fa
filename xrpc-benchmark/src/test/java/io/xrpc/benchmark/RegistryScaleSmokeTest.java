package io.xrpc.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.registry.RegistryScaleTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the registry scale tool working in CI, in its smallest form: a real three-node ensemble of
 * separate JVMs, 20 instances of 5 services in a JVM of their own, 3 consumers, 3 joins and
 * leaves, and a leader kill. Asserts that every change reached every consumer and that no list
 * fell below the registry's true size in the storm; never how fast.
 */
class RegistryScaleSmokeTest {

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // the tool waits on child JVMs
    void aSmallFleetIsMeasuredAndItsListsHoldThroughALeaderKill(@TempDir Path out) throws Exception {
        List<RegistryScaleTool.Row> rows = RegistryScaleTool.run(
                "--instances",
                "20",
                "--services",
                "5",
                "--consumers",
                "3",
                "--joins",
                "3",
                "--warmup-joins",
                "1",
                "--storm",
                "--storm-watch",
                "15",
                // Watched longer than the election and a session: a provider's session lost in the
                // storm would expire, and its list shrink, while the lists are watched.
                "--session-timeout",
                "8",
                "--provider-heap",
                "512m",
                "--zk-heap",
                "256m",
                "--out",
                out.toString(),
                "--quiet");
        assertThat(rows).hasSize(1);
        RegistryScaleTool.Row r = rows.get(0);
        // 20 instance nodes, the revision, 5 mapping entries and the nodes above them.
        assertThat(r.znodes()).isGreaterThanOrEqualTo(20 + 1 + 5);
        assertThat(r.joinsUnseen())
                .as("joins and leaves not seen by every consumer")
                .isZero();
        assertThat(r.joinP50()).isPositive();
        assertThat(r.subscribeP99()).isPositive();
        assertThat(r.heapPerConsumer()).isPositive();
        assertThat(r.storm()).isNotNull();
        assertThat(r.storm().electionMillis())
                .as("a leader again after the kill")
                .isNotNegative();
        assertThat(r.storm().minListSize())
                .as("the smallest list any consumer held")
                .isEqualTo(20);
        assertThat(Files.readString(out.resolve("results.md"))).contains("| instance | 20 x 5 x 3 |");
        assertThat(out.resolve("results.json")).isNotEmptyFile();
    }
}
