package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's walkthrough (build the jar, start the demo provider, list it, describe it, call
 * it with JSON, stress-test it with --target, then the report), line by line as the README writes
 * it and as a paste runs it: the provider started in the background and the next line run at once
 * (it waits for the provider with --wait), through the {@code xrpc} launcher script and
 * {@code java -cp} on the built jar, from the repository's root. Only the port (a free one, not
 * 20880) and the output directory (under target/) are changed, and the build line is not run
 * again: this test runs after the build packaged that jar.
 */
class XrpcWalkthroughIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theReadmeWalkthroughWorksAsWritten() throws Exception {
        List<String> all = walkthrough();
        assertThat(all).hasSize(6);
        assertThat(all.get(0)).startsWith("mvn -q -pl xrpc-benchmark -am -DskipTests package");
        List<String> lines = all.subList(1, all.size());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path out = ROOT.resolve("xrpc-benchmark/target/walkthrough/stress-target");
        List<String> commands = new ArrayList<>();
        for (String l : lines) {
            commands.add(l.replace("20880", Integer.toString(port)).replace("--out stress-target", "--out " + out));
        }

        String provider = commands.get(0);
        assertThat(provider).endsWith("&");
        Process demo = bash("exec " + provider.substring(0, provider.length() - 1)).redirectErrorStream(true).start();
        try {
            BufferedReader demoOut = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
            // Read as a terminal would, so that its output never blocks it; the next line runs at once, as pasted.
            CompletableFuture.runAsync(() -> {
                try {
                    while (demoOut.readLine() != null) {
                        // drained
                    }
                } catch (java.io.IOException e) {
                    // the provider was stopped
                }
            });

            Run list = run(commands.get(1));
            assertThat(list.exit()).as(list.text()).isZero();
            assertThat(JSON.readTree(list.out()).get(0).get("service").asText())
                    .isEqualTo("io.xrpc.benchmark.model.UserService");

            Run describe = run(commands.get(2));
            assertThat(describe.exit()).as(describe.text()).isZero();
            assertThat(JSON.readTree(describe.out()).get("types").has("io.xrpc.benchmark.model.User")).isTrue();

            Run call = run(commands.get(3));
            assertThat(call.exit()).as(call.text()).isZero();
            JsonNode user = JSON.readTree(call.out());
            assertThat(user.get("id").asLong()).isEqualTo(1);
            assertThat(user.get("name").asText()).isNotBlank();

            Run stress = run(commands.get(4));
            assertThat(stress.exit()).as(stress.text()).isZero();
            JsonNode results = JSON.readTree(out.resolve("results.json").toFile());
            assertThat(results.get("levels")).hasSize(2);
            for (JsonNode level : results.get("levels")) {
                assertThat(level.get("calls").asLong()).isPositive();
                assertThat(level.get("errorCount").asLong()).isZero();
            }
            Path report = out.resolve("report.html");
            assertThat(report).isNotEmptyFile();
            if (Files.isExecutable(ReportBrowserTest.CHROMIUM)) {
                ReportBrowserTest.Chromium dom = ReportBrowserTest.chromium(out, "--dump-dom",
                        report.toUri().toString());
                assertThat(dom.out()).contains("data-empty-charts=\"0\"");
                assertThat(ReportBrowserTest.consoleErrors(dom.err())).isEmpty();
            }
        } finally {
            demo.destroy();
            if (!demo.waitFor(20, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
    }

    record Run(int exit, String out, String err) {
        String text() {
            return out + err;
        }
    }

    /** bash with this JVM's java first on the PATH, as a user with this JDK runs the README. */
    private static ProcessBuilder bash(String command) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(ROOT.toFile());
        pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + java.io.File.pathSeparator
                + pb.environment().getOrDefault("PATH", ""));
        return pb;
    }

    private static Run run(String command) throws Exception {
        Path stdout = Files.createTempFile("walkthrough", ".out");
        Path stderr = Files.createTempFile("walkthrough", ".err");
        Process p = bash(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            if (!p.waitFor(150, TimeUnit.SECONDS)) {
                throw new AssertionError("did not finish in 150 s: " + command);
            }
            return new Run(p.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } finally {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    /** The walkthrough block's commands, continuation lines joined and comments dropped. */
    static List<String> walkthrough() throws Exception {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        int begin = -1;
        int end = -1;
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).startsWith("<!-- walkthrough:begin")) {
                begin = i;
            } else if (readme.get(i).startsWith("<!-- walkthrough:end")) {
                end = i;
            }
        }
        assertThat(begin).as("the walkthrough block in README.md").isPositive();
        List<String> commands = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String l : readme.subList(begin + 1, end)) {
            if (l.startsWith("```")) {
                continue;
            }
            String line = l.contains(" # ") ? l.substring(0, l.indexOf(" # ")) : l;
            line = line.strip();
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            if (!current.isEmpty()) {
                commands.add(current.toString().replaceAll("\\s+", " ").strip());
            }
            current.setLength(0);
        }
        return commands;
    }
}
