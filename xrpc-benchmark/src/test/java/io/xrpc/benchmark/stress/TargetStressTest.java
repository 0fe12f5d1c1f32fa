package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stress tool's --target mode against a provider it did not start, as a user's own service. */
class TargetStressTest {
    /** The ids getUser was asked for, to see the argument sets taken in turn. */
    static final Set<Long> asked = ConcurrentHashMap.newKeySet();

    static RpcServer provider;

    @BeforeAll
    static void start() {
        provider = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(UserService.class, new HookedUsers(asked::add))
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        provider.close();
    }

    private static String call() {
        return UserService.class.getName() + "/getUser";
    }

    @Test
    void aRunningServiceIsMeasuredFromJsonArgumentsAloneAndComparedWithTheRunBefore(@TempDir Path dir)
            throws Exception {
        Path first = dir.resolve("first");
        List<Level> before = StressTool.run(
                "--target",
                provider.endpoint().toString(),
                "--call",
                call(),
                "--args",
                "[1]",
                "--threads",
                "1,2",
                "--duration",
                "1s",
                "--warmup",
                "200ms",
                "--max-warmup",
                "200ms",
                "--client",
                "inproc",
                "--quiet",
                "--out",
                first.toString());
        assertThat(before).hasSize(2).allSatisfy(l -> {
            assertThat(l.contender()).isEqualTo("target");
            assertThat(l.scenario()).isEqualTo("getUser");
            assertThat(l.calls()).isPositive();
            assertThat(l.errorCount()).as(l.errors().toString()).isZero();
            assertThat(l.timeline())
                    .isNotEmpty()
                    .allMatch(s -> s.callsPerSecond() >= 0 && s.errors() == 0)
                    .anyMatch(s -> s.callsPerSecond() > 0);
        });

        Path sets = dir.resolve("sets.jsonl");
        Files.writeString(sets, "[2]\n\n[3]\n");
        Path second = dir.resolve("second");
        asked.clear();
        List<Level> after = StressTool.run(
                "--target",
                provider.endpoint().toString(),
                "--call",
                call(),
                "--args-file",
                sets.toString(),
                "--threads",
                "1,2",
                "--duration",
                "1s",
                "--warmup",
                "200ms",
                "--max-warmup",
                "200ms",
                "--client",
                "inproc",
                "--quiet",
                "--compare",
                first.resolve("results.json").toString(),
                "--out",
                second.toString());
        assertThat(after).hasSize(2).allSatisfy(l -> assertThat(l.calls()).isPositive());
        assertThat(asked).as("both argument sets used, nothing else").containsExactlyInAnyOrder(2L, 3L);
        String md = Files.readString(second.resolve("results.md"));
        assertThat(md)
                .contains("| contender | scenario | threads | calls/s before | after | change")
                .contains("| target | getUser | 1 | " + Math.round(before.get(0).throughput()) + " | ");
        String html = Files.readString(second.resolve("report.html"));
        assertThat(html)
                .contains("Before and after")
                .contains("getUser: throughput")
                .contains("Calls per second over the run")
                .doesNotContain("http://", "https://");
        assertThat(second.resolve("results.png")).isNotEmptyFile();
    }

    @Test
    void theCallersRunInAJvmOfTheirOwnByDefaultAndInSeveralWithForks(@TempDir Path dir) throws Exception {
        List<Level> levels = StressTool.run(
                "--target",
                provider.endpoint().toString(),
                "--call",
                call(),
                "--args",
                "[5]",
                "--threads",
                "2",
                "--duration",
                "1s",
                "--warmup",
                "200ms",
                "--max-warmup",
                "200ms",
                "--quiet",
                "--forks",
                "2",
                "--out",
                dir.toString());
        assertThat(levels).singleElement().satisfies(l -> {
            assertThat(l.calls()).isPositive();
            assertThat(l.forks())
                    .as("one result per callers' JVM")
                    .hasSize(2)
                    .allSatisfy(f -> assertThat(f.throughput()).isPositive());
            assertThat(l.roundThroughputs())
                    .as("each JVM measured for --duration")
                    .hasSize(2);
            assertThat(l.errorCount()).isZero();
            assertThat(l.clientCpuMicrosPerCall())
                    .as("the callers' CPU per call")
                    .isPositive();
            assertThat(l.providerCpuMicrosPerCall()).as("not ours to measure").isEqualTo(-1);
        });
    }

    /**
     * Before: a registry target's password was written in clear into results.json and report.html
     * and onto every forked caller's command line. The callers now take the whole target from
     * their environment: with the masked one of their command line their registry identity would
     * differ from the provider's, and they would believe no provider node.
     */
    @Test
    void aRegistryPasswordInTheTargetIsWrittenNowhere(@TempDir Path dir) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
                RpcServer registered = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .registry("zookeeper://reader:s3cret@" + zk.connectString())
                        .service(UserService.class, new UserServiceImpl())
                        .build()
                        .start()) {
            List<Level> levels = StressTool.run(
                    "--target",
                    "zookeeper://reader:s3cret@" + zk.connectString(),
                    "--call",
                    call(),
                    "--args",
                    "[5]",
                    "--threads",
                    "1",
                    "--duration",
                    "1s",
                    "--warmup",
                    "200ms",
                    "--max-warmup",
                    "200ms",
                    "--quiet",
                    "--out",
                    dir.toString());
            assertThat(levels)
                    .singleElement()
                    .satisfies(l -> assertThat(l.errorCount()).isZero());
            for (String file : List.of("results.json", "results.md", "report.html")) {
                assertThat(Files.readString(dir.resolve(file))).as(file).doesNotContain("s3cret");
            }
            assertThat(Files.readString(dir.resolve("results.json"))).contains("reader:****@");
            assertThat(Files.readString(dir.resolve("report.html"))).contains("reader:****@");
        }
    }

    @Test
    void aMethodWithoutParametersIsMeasuredInTheCallersOwnJvm(@TempDir Path dir) throws Exception {
        // The callers' JVM is told the types: for none, an empty --types, which it once read as one blank type.
        try (RpcServer gate = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(
                        GateService.class,
                        new GateServiceImpl("g"),
                        ServiceOptions.builder().version("2").group("eu").build())
                .build()
                .start()) {
            List<Level> levels = StressTool.run(
                    "--target",
                    gate.endpoint().toString(),
                    "--call",
                    GateService.class.getName() + "/whoAmI",
                    "--service-version",
                    "2",
                    "--group",
                    "eu",
                    "--threads",
                    "1",
                    "--duration",
                    "1s",
                    "--warmup",
                    "200ms",
                    "--max-warmup",
                    "200ms",
                    "--quiet",
                    "--out",
                    dir.toString());
            assertThat(levels).singleElement().satisfies(l -> {
                assertThat(l.calls()).isPositive();
                assertThat(l.errorCount()).as(l.errors().toString()).isZero();
            });
        }
    }

    @Test
    void aCallThatCannotSucceedStopsTheRunNamingWhy(@TempDir Path dir) {
        assertThatThrownBy(() -> StressTool.run(
                        "--target",
                        provider.endpoint().toString(),
                        "--call",
                        call(),
                        "--args",
                        "[\"one\"]",
                        "--threads",
                        "1",
                        "--duration",
                        "1s",
                        "--client",
                        "inproc",
                        "--quiet",
                        "--out",
                        dir.toString()))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                    assertThat(e.getMessage()).contains("argument 0 (long)");
                });
        assertThatThrownBy(() -> StressTool.run(
                        "--target",
                        provider.endpoint().toString(),
                        "--call",
                        UserService.class.getName() + "/lose",
                        "--args",
                        "[1]",
                        "--client",
                        "inproc",
                        "--quiet",
                        "--out",
                        dir.toString()))
                .hasMessageContaining("no method lose with 1 parameters")
                .hasMessageContaining("getUser(long)");
    }
}
