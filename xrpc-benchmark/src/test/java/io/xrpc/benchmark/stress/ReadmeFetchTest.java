package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.server.RpcServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's call from another language, run as it stands: Node's own {@code fetch} posts JSON to
 * the demo UserService and prints the user's name. Skipped, saying so, where node is not installed.
 */
class ReadmeFetchTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void nodeFetchFromTheReadmeCallsTheDemoService() throws Exception {
        String line = Files.readAllLines(XrpcWalkthroughIT.ROOT.resolve("README.md")).stream()
                .filter(l -> l.startsWith("node -e \"fetch("))
                .findFirst()
                .orElseThrow(() -> new AssertionError("README.md shows no node fetch line"));
        assumeTrue(hasNode(), "node is not installed here: the README's fetch line was not run");
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .service(UserService.class, new UserServiceImpl())
                .build()
                .start()) {
            String script = line.substring("node -e \"".length(), line.length() - 1)
                    .replace("20880", Integer.toString(provider.endpoint().port()));
            Process p = new ProcessBuilder("node", "-e", script)
                    .redirectErrorStream(true)
                    .start();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertThat(out).isEqualTo(new UserServiceImpl().getUser(1).name);
        }
    }

    static boolean hasNode() {
        return io.xrpc.testing.ExternalTools.runs("node", "--version");
    }
}
