package io.xrpc.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.xrpc.server.RpcServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Node's own HTTP/2 client, fifty calls at once on one connection: each is answered on its stream
 * with its own result. Skipped, saying so, where node is not installed.
 */
@Timeout(60)
class HttpNodeTest {
    static boolean hasNode() {
        return io.xrpc.testing.ExternalTools.runs("node", "--version");
    }

    @Test
    void fiftyCallsAtOnceOnOneHttp2Connection() throws Exception {
        assumeTrue(hasNode(), "node is not installed here: the Node HTTP/2 calls are skipped");
        HttpJsonTest.ShopImpl impl = new HttpJsonTest.ShopImpl();
        try (RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .service(HttpJsonTest.Shop.class, impl)
                .build()
                .start()) {
            Path script =
                    Path.of(HttpNodeTest.class.getResource("/http/h2-calls.js").toURI());
            Process p = new ProcessBuilder(
                            "node",
                            script.toString(),
                            "http://127.0.0.1:" + server.endpoint().port(),
                            "/" + HttpJsonTest.Shop.class.getName() + "/place",
                            "50")
                    .redirectErrorStream(true)
                    .start();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
            assertThat(lines).hasSize(50);
            for (String line : lines) {
                String[] parts = line.split(" ", 3);
                assertThat(parts[1]).as(line).isEqualTo("200");
                assertThat(parts[2]).isEqualTo("{\"sku\":\"tea\",\"quantity\":" + parts[0] + "}");
            }
        }
    }
}
