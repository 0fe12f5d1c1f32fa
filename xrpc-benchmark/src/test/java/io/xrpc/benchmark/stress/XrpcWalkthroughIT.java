package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's walkthrough block pasted whole, as a new user does: one shell runs it from the
 * repository's root, the build line first (it builds the jar the other lines use), the provider
 * started in the background and the next line run at once (it waits for the provider with
 * --wait), then the README's own "kill %1". Only the port (a free one, not 20880) and the output
 * directory (under target/) are changed. Each command's output is checked: the JSON of list,
 * describe and call, the stress run's results.json, and its report in headless Chromium where
 * installed.
 */
class XrpcWalkthroughIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void theReadmeWalkthroughWorksPastedAsOneBlock() throws Exception {
        List<String> commands = walkthrough();
        assertThat(commands).hasSize(11);
        assertThat(commands.get(0)).startsWith("mvn -q -pl xrpc-benchmark -am -DskipTests package");
        assertThat(commands.get(1)).endsWith("&");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path out = ROOT.resolve("xrpc-benchmark/target/walkthrough/stress-target");
        String block = String.join("\n", block())
                .replace("20880", Integer.toString(port))
                .replace("--out stress-target", "--out " + out);
        String after = readmeAfterBlock();
        assertThat(after).as("the README says how to stop the provider").contains("`kill %1`");
        // set -e only so that a failing line fails the test at once (a paste would go on), and the
        // trap so that the provider never outlives a failed run.
        Run r = run("set -e\ntrap 'kill %1 2>/dev/null || true' EXIT\n" + block + "\nkill %1\n");
        assertThat(r.exit()).as(r.text()).isZero();

        // list, describe and call print JSON values one after another, after Maven's colour resets
        // (mvn -q prints only those); the provider's one line may fall among them.
        String text = r.out().replaceAll("\u001B\\[[0-9;]*m", "");
        String json = text.substring(text.indexOf("["))
                .lines()
                .filter(l -> !l.startsWith("demo provider of"))
                .reduce("", (x, y) -> x + y + "\n");
        JsonParser parser = JSON.getFactory().createParser(json);
        JsonNode list = JSON.readTree(parser);
        assertThat(list.findValuesAsText("service"))
                .containsExactly("io.xrpc.benchmark.demo.Orders", "io.xrpc.benchmark.model.UserService");
        JsonNode describe = JSON.readTree(parser);
        assertThat(describe.get("types").has("io.xrpc.benchmark.model.User")).isTrue();
        assertThat(describe.get("methods").toString()).contains("io.xrpc.benchmark.model.User getUser(long id)");
        JsonNode user = JSON.readTree(parser);
        assertThat(user.get("id").asLong()).isEqualTo(1);
        assertThat(user.get("name").asText()).isNotBlank();
        JsonNode overHttp = JSON.readTree(parser); // curl, on the same port
        assertThat(overHttp).isEqualTo(user);
        JsonNode declared = JSON.readTree(parser);
        assertThat(declared.get("code").asText()).isEqualTo("unknown");
        assertThat(declared.get("exception").get("class").asText()).isEqualTo("io.xrpc.benchmark.demo.OutOfStock");
        assertThat(declared.get("exception").get("fields").get("left").asInt()).isEqualTo(10);
        JsonNode noToken = JSON.readTree(parser);
        assertThat(noToken.get("code").asText()).isEqualTo("unauthenticated");
        assertThat(noToken.get("message").asText()).contains("Bearer demo-token");
        JsonNode withToken = JSON.readTree(parser);
        assertThat(withToken.asBoolean()).isTrue();
        for (int i = 1; i <= 3; i++) {
            JsonNode message = JSON.readTree(parser);
            assertThat(message.get("id").asInt()).as("stream message " + i).isEqualTo(i);
        }
        assertThat(r.out()).as("the console's closing table").contains("contender", "steady");

        JsonNode results = JSON.readTree(out.resolve("results.json").toFile());
        assertThat(results.get("levels")).hasSize(2);
        for (JsonNode level : results.get("levels")) {
            assertThat(level.get("calls").asLong()).isPositive();
            assertThat(level.get("errorCount").asLong()).isZero();
            assertThat(level.get("warmup")).as("the warm-up's course").isNotEmpty();
        }
        Path report = out.resolve("report.html");
        assertThat(Files.readString(report)).contains("<h2>Summary</h2>", "Latency percentiles over the run");
        if (Files.isExecutable(ReportBrowserTest.CHROMIUM)) {
            ReportBrowserTest.Chromium dom =
                    ReportBrowserTest.chromium(out, "--dump-dom", report.toUri().toString());
            assertThat(dom.out()).contains("data-empty-charts=\"0\"");
            assertThat(ReportBrowserTest.consoleErrors(dom.err())).isEmpty();
        } else {
            System.err.println("Chromium is not installed at " + ReportBrowserTest.CHROMIUM + ": the walkthrough's"
                    + " report was not checked in a browser");
        }
        // kill %1 stopped the provider: its port takes no connection any more.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean closed = false;
        while (!closed && System.nanoTime() < deadline) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // poll again
            } catch (IOException refused) {
                closed = true;
            }
        }
        assertThat(closed).as("the provider stopped after kill %1").isTrue();
    }

    record Run(int exit, String out, String err) {
        String text() {
            return out + err;
        }
    }

    /** bash with this JVM's java first on the PATH, as a user with this JDK runs the README. */
    private static ProcessBuilder bash(String command) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(ROOT.toFile());
        pb.environment()
                .put(
                        "PATH",
                        Path.of(System.getProperty("java.home"), "bin")
                                + File.pathSeparator
                                + pb.environment().getOrDefault("PATH", ""));
        return pb;
    }

    private static Run run(String command) throws Exception {
        Path stdout = Files.createTempFile("walkthrough", ".out");
        Path stderr = Files.createTempFile("walkthrough", ".err");
        Process p = bash(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            if (!p.waitFor(400, TimeUnit.SECONDS)) {
                throw new AssertionError("did not finish in 400 s: " + command + "\n" + Files.readString(stdout)
                        + Files.readString(stderr));
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

    /** The walkthrough block's lines as they stand, the fences left out: what a user pastes. */
    static List<String> block() throws Exception {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        int begin = indexOf(readme, "<!-- walkthrough:begin");
        int end = indexOf(readme, "<!-- walkthrough:end");
        return readme.subList(begin + 1, end).stream()
                .filter(l -> !l.startsWith("```"))
                .toList();
    }

    /** The README's paragraph after the block: its lines up to the first blank one after some text. */
    static String readmeAfterBlock() throws Exception {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        StringBuilder paragraph = new StringBuilder();
        for (String l : readme.subList(indexOf(readme, "<!-- walkthrough:end") + 1, readme.size())) {
            if (l.isBlank() && !paragraph.isEmpty()) {
                break;
            }
            paragraph.append(l).append('\n');
        }
        return paragraph.toString();
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("README.md has no line starting " + prefix);
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
