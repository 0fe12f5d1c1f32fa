package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.server.RpcServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console page of a provider serving the demo UserService, in a real headless Chromium: it
 * loads without console errors, lists the service from reflection, and a call sent from its form
 * (opened by a link that names the call: the page fills the form and presses Call) shows the answer,
 * its status and time, and the same call as curl and xrpc lines. A screenshot lands in target/.
 * Skipped, saying so, where Chromium is not installed.
 */
class ConsoleBrowserTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void theConsoleListsTheDemoServiceAndACallFromItsFormShowsTheAnswer() throws Exception {
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .httpConsole(true)
                .service(UserService.class, new UserServiceImpl())
                .build()
                .start()) {
            String page = "http://127.0.0.1:" + provider.endpoint().port() + "/xrpc/console";
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(HttpRequest.newBuilder(URI.create(page)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(r.headers().firstValue("content-security-policy").orElse(""))
                    .contains("connect-src 'self'", "default-src 'none'");
            assertThat(r.body()).doesNotContain("http://", "https://"); // nothing fetched from elsewhere

            Assumptions.assumeTrue(
                    Files.isExecutable(ReportBrowserTest.CHROMIUM),
                    "Chromium is not installed at " + ReportBrowserTest.CHROMIUM
                            + " (apt-get install chromium): the console was not checked in a browser");
            Path out = Files.createDirectories(Path.of("target", "console-browser-test"));
            String link = page + "#call=" + UserService.class.getName() + "/getUser(long)&args=[1]";
            ReportBrowserTest.Chromium dom =
                    ReportBrowserTest.chromium(out, "--virtual-time-budget=15000", "--dump-dom", link);
            assertThat(dom.exit()).as(dom.err()).isZero();
            assertThat(dom.out())
                    .as(dom.err())
                    .contains("data-services=\"1\"", "data-call-status=\"200\"")
                    .contains(UserService.class.getName() + "#getUser(long)")
                    .contains("\"id\": 1")
                    .contains("HTTP 200 in ")
                    .contains("curl -sS -H 'content-type: application/json'")
                    .contains("xrpc call " + UserService.class.getName() + "/getUser '[1]' --address 127.0.0.1:");
            assertThat(ReportBrowserTest.consoleErrors(dom.err()))
                    .as("console errors")
                    .isEmpty();

            Path shot = out.resolve("console.png").toAbsolutePath();
            Files.deleteIfExists(shot);
            ReportBrowserTest.Chromium screenshot = ReportBrowserTest.chromium(
                    out, "--virtual-time-budget=15000", "--screenshot=" + shot, "--window-size=1300,900", link);
            assertThat(screenshot.exit()).as(screenshot.err()).isZero();
            assertThat(shot).isNotEmptyFile();
        }
    }

    @Test
    void theConsoleIsOffUnlessEnabled() throws Exception {
        try (RpcServer provider = RpcServer.builder()
                .host("127.0.0.1")
                .service(UserService.class, new UserServiceImpl())
                .build()
                .start()) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                            + provider.endpoint().port() + "/xrpc/console"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(r.body()).contains("the console is off", "httpConsole(true)");
        }
    }
}
