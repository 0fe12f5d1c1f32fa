package io.xrpc.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.xrpc.server.RpcServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The same calls from curl, the client the README shows: HTTP/1.1, and HTTP/2 with prior knowledge
 * (several calls on one HTTP/2 connection). Skipped, saying so, where curl is not installed.
 */
@Timeout(60)
class HttpCurlTest {
    static RpcServer server;
    static String base;
    static final HttpJsonTest.ShopImpl impl = new HttpJsonTest.ShopImpl();

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(hasCurl(), "curl is not installed here (Debian: apt-get install curl): the curl calls are skipped");
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(HttpJsonTest.Shop.class, impl)
                .build()
                .start();
        base = "http://127.0.0.1:" + server.endpoint().port() + "/" + HttpJsonTest.Shop.class.getName() + "/";
    }

    @AfterAll
    static void stop() {
        impl.release.countDown();
        if (server != null) {
            server.close();
        }
    }

    static boolean hasCurl() {
        return io.xrpc.testing.ExternalTools.runs("curl", "--version");
    }

    /** curl's output: the body, then a line with the HTTP version and status it saw. */
    static String curl(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-w", "\n%{http_version} %{http_code}"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void curlCallsOverHttp1() throws Exception {
        String out = curl("-H", "content-type: application/json", "-d", "[\"tea\", 2]", base + "place");
        assertThat(out).isEqualTo("{\"sku\":\"tea\",\"quantity\":2}\n1.1 200");
    }

    @Test
    void curlCallsOverHttp2WithPriorKnowledge() throws Exception {
        // One call per curl: curl 7.88 fails to reuse a prior-knowledge HTTP/2 connection for a
        // second request against any server (Node's own included); HttpNodeTest multiplexes calls.
        assertThat(curl(
                        "--http2-prior-knowledge",
                        "-H",
                        "content-type: application/json",
                        "-d",
                        "{\"sku\":\"tea\",\"quantity\":3}",
                        base + "echo"))
                .isEqualTo("{\"sku\":\"tea\",\"quantity\":3}\n2 200");
        assertThat(curl(
                        "--http2-prior-knowledge",
                        "-H",
                        "content-type: application/json",
                        "-d",
                        "[\"saffron\", 1]",
                        base + "place"))
                .contains("\"code\":\"unknown\"", "OutOfStock", "\"left\":1", "\n2 500");
        assertThat(curl(
                        "--http2-prior-knowledge",
                        "-H",
                        "connect-timeout-ms: 100",
                        "-H",
                        "content-type: application/json",
                        "-d",
                        "",
                        base + "hang"))
                .contains("\"code\":\"deadline_exceeded\"", "\n2 504");
    }

    @Test
    void curlReadsAServerStreamLineByLineOverBothVersions() throws Exception {
        for (String version : List.of("--http1.1", "--http2-prior-knowledge")) {
            String out =
                    curl(version, "-N", "-H", "content-type: application/json", "-d", "[3, false]", base + "orders");
            assertThat(out)
                    .as(version)
                    .isEqualTo("{\"sku\":\"o0\",\"quantity\":0}\n{\"sku\":\"o1\",\"quantity\":1}\n"
                            + "{\"sku\":\"o2\",\"quantity\":2}\n\n" + (version.equals("--http1.1") ? "1.1" : "2")
                            + " 200");
        }
    }
}
