package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.server.RpcServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * report.html in a real headless Chromium (Debian's {@code chromium}): it loads with no console
 * error, every chart it draws has points, and a screenshot lands in target/. Skipped, saying so,
 * where Chromium is not installed ({@code apt-get install chromium}).
 */
class ReportBrowserTest {
    static final Path CHROMIUM = Path.of(System.getProperty("xrpc.chromium", "/usr/bin/chromium"));

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theReportLoadsWithoutErrorsAndEveryChartHasPoints() throws Exception {
        Assumptions.assumeTrue(
                Files.isExecutable(CHROMIUM),
                "Chromium is not installed at " + CHROMIUM
                        + " (apt-get install chromium, or -Dxrpc.chromium=PATH): report.html was not checked in a browser");
        Path out = Path.of("target", "report-browser-test");
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(UserService.class, new UserServiceImpl())
                .build()
                .start()) {
            Path previous = out.resolve("before");
            StressTool.run(
                    "--target",
                    provider.endpoint().toString(),
                    "--call",
                    UserService.class.getName() + "/listUser",
                    "--args",
                    "[1]",
                    "--threads",
                    "1,2,4",
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
                    previous.toString());
            StressTool.run(
                    "--target",
                    provider.endpoint().toString(),
                    "--call",
                    UserService.class.getName() + "/listUser",
                    "--args",
                    "[1]",
                    "--threads",
                    "1,2,4",
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
                    previous.resolve("results.json").toString(),
                    "--out",
                    out.toString());
        }
        Path report = out.resolve("report.html").toAbsolutePath();
        String html = Files.readString(report);
        int drawn = count(html, "<figure class=\"chart\"");
        assertThat(drawn).as("charts in the page").isGreaterThanOrEqualTo(10);
        // What a Gatling user looks for: the run's facts, a summary per level, the course of the run.
        assertThat(html)
                .contains(
                        "<th>date</th>",
                        "<th>duration</th>",
                        "<th>warm-up</th>",
                        "<h2>Summary</h2>",
                        "<th>calls OK</th><th>KO</th>",
                        "<th>p95 us</th>",
                        "<th>p99.9 us</th>",
                        "Latency distribution",
                        "Latency percentiles over the run",
                        "Calls under way over the run",
                        "Failed calls over the run",
                        "class=\"mark\"",
                        "warm-up</span>",
                        "change ±noise")
                .doesNotContain("No ratio");

        Chromium dom = chromium(out, "--dump-dom", report.toUri().toString());
        assertThat(dom.exit()).as(dom.err()).isZero();
        Matcher charts = Pattern.compile("data-charts=\"(\\d+)\"").matcher(dom.out());
        assertThat(charts.find()).as("the page's check ran: " + dom.err()).isTrue();
        assertThat(Integer.parseInt(charts.group(1))).isEqualTo(drawn);
        assertThat(dom.out()).contains("data-empty-charts=\"0\"");
        assertThat(consoleErrors(dom.err())).as("console errors").isEmpty();

        Path shot = out.resolve("report.png").toAbsolutePath();
        Files.deleteIfExists(shot);
        Chromium screenshot = chromium(
                out,
                "--screenshot=" + shot,
                "--window-size=1400,2600",
                "--hide-scrollbars",
                report.toUri().toString());
        assertThat(screenshot.exit()).as(screenshot.err()).isZero();
        assertThat(shot).isNotEmptyFile();
        assertThat(consoleErrors(screenshot.err())).isEmpty();
    }

    record Chromium(int exit, String out, String err) {}

    /** Chromium as the machine's probe runs it: headless, no sandbox (root), nothing fetched from the network. */
    static Chromium chromium(Path dir, String... args) throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium-profile").toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--enable-logging=stderr",
                "--v=0",
                "--user-data-dir=" + profile));
        cmd.addAll(List.of(args));
        Path stdout = Files.createTempFile(dir, "chromium", ".out");
        Path stderr = Files.createTempFile(dir, "chromium", ".err");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("Chromium did not finish within 60 s: " + Files.readString(stderr));
            }
            return new Chromium(
                    p.exitValue(),
                    Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        } finally {
            if (p.isAlive()) { // timed out, or this thread was interrupted: no browser outlives its test
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** The lines Chromium logs for the page's console errors and uncaught exceptions. */
    static List<String> consoleErrors(String log) {
        return log.lines()
                .filter(l -> l.contains("CONSOLE") || l.contains("Uncaught"))
                .toList();
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
