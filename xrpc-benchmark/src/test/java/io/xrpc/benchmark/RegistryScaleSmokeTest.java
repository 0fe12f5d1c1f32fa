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
 * leaves, and a storm: the ensemble without quorum for longer than the providers' sessions, so
 * that every provider replaces its node under a new session (issue 41). Asserts that every change
 * reached every consumer and that no list fell below the registry's true size in the storm; never
 * how fast.
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
                "30",
                // No quorum for longer than a session: every provider's Curator gives its session
                // up and opens another, and each provider replaces its node under the new one (at
                // 20 instances ZooKeeper replaces them before the old sessions expire; at 4,000 it
                // lacks them for a minute or two: docs/REGISTRY.md).
                "--storm-outage",
                "12",
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
        System.out.printf(
                "storm: ZooKeeper whole again after %d ms (0: it never lacked a node)%n",
                r.storm().zkWholeAfterMillis());
        assertThat(Files.readString(out.resolve("results.md"))).contains("| instance | 20 x 5 x 3 |");
        assertThat(out.resolve("results.json")).isNotEmptyFile();
    }
}
