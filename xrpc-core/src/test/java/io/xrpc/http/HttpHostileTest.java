package io.xrpc.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.server.RpcServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What HTTP servers are attacked with, as real bytes over a real socket: each costs the attacker
 * its own connection (or stream), the error names why where HTTP lets it, and the server goes on
 * serving others. The frame timeout is 1 s here so that the slow peers are closed quickly.
 */
@Timeout(60)
class HttpHostileTest {
    private RpcServer server;
    private final HttpJsonTest.ShopImpl impl = new HttpJsonTest.ShopImpl();

    @BeforeEach
    void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .frameTimeout(Duration.ofSeconds(1))
                .service(HttpJsonTest.Shop.class, impl)
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        impl.release.countDown();
        server.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.endpoint().port()), 5000);
        s.setSoTimeout(20_000);
        return s;
    }

    /** Everything the server sends until it closes the connection. */
    private static String readToClose(Socket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // closed with unread bytes of ours: what arrived before counts
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static String path() {
        return "/" + HttpJsonTest.Shop.class.getName() + "/place";
    }

    /** A JSON POST's request line and first headers, the rest of its headers and body to follow. */
    private static String head(String path) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    }

    /** Waits until {@code count} stops moving (two looks half a second apart agree): a producer held back. */
    private static void awaitFlat(java.util.function.LongSupplier count) {
        long[] last = {-1};
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    long now = count.getAsLong();
                    boolean flat = now == last[0];
                    last[0] = now;
                    return flat;
                });
    }

    private void stillServes() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + server.endpoint().port() + path()))
                                .version(HttpClient.Version.HTTP_1_1)
                                .header("content-type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("[\"tea\", 1]"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void aSlowLorisRequestLineIsClosedAtTheFrameTimeout() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path() + " HTTP/1.1\r\nHost: x\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush(); // and the rest never comes
            assertThat(readToClose(s)).isEmpty(); // closed without an answer, not held
        }
        stillServes();
    }

    @Test
    void aBodyShorterThanItsLengthIsClosedAtTheFrameTimeout() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write((head(path()) + "Content-Length: 1000\r\n\r\n[\"tea\"").getBytes(StandardCharsets.US_ASCII));
            assertThat(readToClose(s)).isEmpty();
        }
        assertThat(impl.hangsReturned.get()).isZero();
        stillServes();
    }

    @Test
    void aBodyLongerThanItsLengthIsAnsweredThenItsRestRefusedAsAMalformedRequest() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write((head(path()) + "Content-Length: 10\r\n\r\n[\"tea\", 1]GARBAGE\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = readToClose(s);
            assertThat(answer).startsWith("HTTP/1.1 200 OK").contains("{\"sku\":\"tea\",\"quantity\":1}");
            assertThat(answer).contains("HTTP/1.1 400 Bad Request", "malformed HTTP request");
        }
        stillServes();
    }

    @Test
    void aBodyOverTheFrameLimitIsRefusedFromItsLengthBeforeAByteOfItIsRead() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write((head(path()) + "Content-Length: 1000000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = readToClose(s);
            assertThat(answer).startsWith("HTTP/1.1 413").contains("1000000000 bytes", "maxFrameLength");
        }
        stillServes();
    }

    @Test
    void aChunkedBodyGrowingPastTheFrameLimitIsRefused() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            out.write((head(path()) + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 20];
            String answer;
            try {
                for (int i = 0; i < 9; i++) {
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            } catch (SocketException closed) {
                // the server answered and closed while we were still sending
            }
            answer = readToClose(s);
            assertThat(answer).startsWith("HTTP/1.1 413").contains("frame limit");
        }
        stillServes();
    }

    @Test
    void headersOverTheLimitAreRefusedNamingTheLimit() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write(("POST " + path() + " HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer;
            try {
                answer = readToClose(s);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no answer to an oversized header", e);
            }
            assertThat(answer).startsWith("HTTP/1.1 431").contains("headers 8192");
        }
        stillServes();
    }

    @Test
    void aRequestLineOverTheLimitIsRefused() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write(("POST /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToClose(s)).startsWith("HTTP/1.1 414").contains("request line 4096");
        }
        stillServes();
    }

    @Test
    void aStreamCallerThatNeverReadsHoldsTheProviderAtAboutAWindow() throws Exception {
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress("127.0.0.1", server.endpoint().port()), 5000);
            s.getOutputStream()
                    .write(("POST /" + HttpJsonTest.Shop.class.getName() + "/endless HTTP/1.1\r\nHost: x\r\n"
                                    + "Content-Type: application/json\r\nConnect-Timeout-Ms: 60000\r\n"
                                    + "Content-Length: 0\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            await().atMost(Duration.ofSeconds(20)).until(() -> impl.produced.get() > 0);
            awaitFlat(impl.produced::get);
            // What the kernel's socket buffers took (up to tcp_wmem's maximum, in lines of 27 bytes
            // or more), plus one window of the provider's (1,024) and what is in hand: not endless.
            long kernel;
            try (InputStream in =
                    java.nio.file.Files.newInputStream(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_wmem"))) {
                kernel = Long.parseLong(new String(
                                in.readAllBytes(), StandardCharsets.US_ASCII) // not readString: /proc lies about sizes
                        .trim()
                        .split("\\s+")[2]);
            }
            assertThat(impl.produced.get()).isLessThan(kernel / 27 + 4 * 1024);
        }
        stillServes();
    }

    private RpcServer small(RpcServer.Builder b) {
        return b.host("127.0.0.1")
                .service(HttpJsonTest.Shop.class, impl)
                .build()
                .start();
    }

    private static String http1(String path, String body, String... headers) {
        StringBuilder r = new StringBuilder(head(path));
        for (String h : headers) {
            r.append(h).append("\r\n");
        }
        return r.append("Content-Length: ")
                .append(body.length())
                .append("\r\n\r\n")
                .append(body)
                .toString();
    }

    @Test
    void aMalformedEscapeInThePathIsABadRequestAndHoldsNoMemoryBudget() throws Exception {
        // A budget of one frame: a reservation left behind would refuse every large request after it.
        try (RpcServer s = small(RpcServer.builder().maxFrameLength(64 * 1024).maxRequestMemory(64 * 1024))) {
            String big = "[\"" + "x".repeat(40_000) + "\", 1]";
            for (int i = 0; i < 3; i++) {
                try (Socket h2 = new Socket("127.0.0.1", s.endpoint().port())) {
                    h2.setSoTimeout(20_000);
                    RawH2 raw = new RawH2(h2);
                    raw.preface();
                    raw.headers(1, "/%zz/place", false);
                    raw.data(1, big.getBytes(StandardCharsets.US_ASCII), true);
                    assertThat(raw.status(1)).isEqualTo(400);
                }
                try (Socket h1 = new Socket("127.0.0.1", s.endpoint().port())) {
                    h1.setSoTimeout(20_000);
                    h1.getOutputStream()
                            .write(http1("/%zz/place", big, "Connection: close").getBytes(StandardCharsets.US_ASCII));
                    assertThat(readToClose(h1)).startsWith("HTTP/1.1 400").contains("malformed request");
                }
            }
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + s.endpoint().port() + path()))
                                    .version(HttpClient.Version.HTTP_1_1)
                                    .header("content-type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(big))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    @Test
    void http2BodiesArrivingAtOnceAreHeldWithinTheMemoryBudgetEveryByteCounted() throws Exception {
        // A budget of 64 KiB; ten streams each hold 15 KiB of a body that never ends. Counted from
        // the first byte (not from 16 KiB, as one partial frame is), the budget refuses the later ones.
        try (RpcServer s = small(RpcServer.builder().maxFrameLength(64 * 1024).maxRequestMemory(64 * 1024));
                Socket sock = new Socket("127.0.0.1", s.endpoint().port())) {
            sock.setSoTimeout(20_000);
            RawH2 h2 = new RawH2(sock);
            h2.preface();
            byte[] part = ("[\"" + "x".repeat(15 * 1024)).getBytes(StandardCharsets.US_ASCII);
            for (int id = 1; id <= 19; id += 2) {
                h2.headers(id, path(), false);
                h2.data(id, part, false);
            }
            assertThat(h2.firstStatus()).isEqualTo(503); // the first answer of all: a refusal, at once
        }
    }

    @Test
    void aBodyThatFitsButWhoseFrameWouldNotIsAnsweredTooLargeNotReset() throws Exception {
        try (RpcServer s = small(RpcServer.builder().maxFrameLength(64 * 1024))) {
            String body = "[\"" + "x".repeat(64 * 1024 - 10 - 7) + "\", 1]"; // 10 bytes under the limit
            try (Socket h1 = new Socket("127.0.0.1", s.endpoint().port())) {
                h1.setSoTimeout(20_000);
                h1.getOutputStream().write(http1(path(), body).getBytes(StandardCharsets.US_ASCII));
                String answer = new String(h1.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                assertThat(answer).isEqualTo("HTTP/1.1 413");
            }
        }
    }

    @Test
    void anInvalidChunkIsRefusedAndItsTruncatedRequestNeverRuns() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write((head(path()) + "Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\nzz\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToClose(s)).startsWith("HTTP/1.1 400").contains("malformed HTTP request");
        }
        assertThat(impl.placed.get()).isZero();
        stillServes();
    }

    @Test
    void pipelinedRequestsBehindOneThatWaitsAreNotReadWithoutEnd() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 400; i++) {
                        out.write(http1(
                                        "/" + HttpJsonTest.Shop.class.getName() + "/hang",
                                        "",
                                        "Connect-Timeout-Ms: 60000")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (IOException closed) {
                    // the test ended
                }
            });
            writer.setDaemon(true);
            writer.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> impl.hangsStarted.get() > 0);
            awaitFlat(impl.hangsStarted::get);
            // Reading waits once 16 are owed; what one read held may add some, not the other hundreds.
            assertThat(impl.hangsStarted.get()).isLessThan(200);
        }
        impl.release.countDown();
        stillServes();
    }

    @Test
    void pipelinedRequestsInOneWriteAreNotAllRunAtOnce() throws Exception {
        try (Socket s = connect()) {
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < 400; i++) {
                all.append(http1("/" + HttpJsonTest.Shop.class.getName() + "/hang", "", "Connect-Timeout-Ms: 60000"));
            }
            s.getOutputStream()
                    .write(all.toString().getBytes(StandardCharsets.US_ASCII)); // one write, many in one read
            await().atMost(Duration.ofSeconds(20)).until(() -> impl.hangsStarted.get() > 0);
            awaitFlat(impl.hangsStarted::get);
            // Decoded requests wait while 16 are owed (one is passed on per read once reading resumes).
            assertThat(impl.hangsStarted.get()).isLessThanOrEqualTo(16 + 1);
        }
        impl.release.countDown();
        stillServes();
    }

    @Test
    void http2AnswersAPeerNeverGrantsWindowForCloseTheConnectionAtTheFrameTimeout() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            h2.setting(0x4, 0); // SETTINGS_INITIAL_WINDOW_SIZE: no stream may be sent a byte
            for (int id = 1; id <= 9; id += 2) {
                h2.headers(id, "/" + HttpJsonTest.Shop.class.getName() + "/catalog", false);
                h2.data(id, "20000".getBytes(StandardCharsets.US_ASCII), true);
            }
            for (int i = 0; i < 20; i++) {
                h2.ping(i); // alive, but granting nothing
            }
            // Read what comes (headers, the pings' acks; no DATA without window) until the server
            // closes: a socket timeout (20 s) fails the test, a close says why in a GOAWAY.
            boolean closed = RawH2.hasGoAway(readToClose(s).getBytes(StandardCharsets.ISO_8859_1));
            assertThat(closed)
                    .as("the server closed a connection that took none of its answers")
                    .isTrue();
        }
        stillServes();
    }

    @Test
    void aCallLongerThanThreeHeartbeatsKeepsItsHttpConnection() throws Exception {
        try (RpcServer s = small(RpcServer.builder().heartbeatInterval(Duration.ofMillis(100)))) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                            + s.endpoint().port() + "/" + HttpJsonTest.Shop.class.getName() + "/hang"))
                                    .version(HttpClient.Version.HTTP_1_1)
                                    .header("content-type", "application/json")
                                    .header("connect-timeout-ms", "1500") // fifteen heartbeat intervals
                                    .POST(HttpRequest.BodyPublishers.ofString(""))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(504);
        }
    }

    @Test
    void http2StreamErrorResetsThatStreamAndTheConnectionServesOn() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            h2.headers(1, path(), false, true, RawH2.literal("content-length", "5"));
            h2.data(1, "[]".getBytes(StandardCharsets.US_ASCII), true); // 2 bytes, not 5
            assertThat(h2.outcome(1)).isEqualTo("reset");
            h2.headers(3, path(), false);
            h2.data(3, "[\"tea\", 1]".getBytes(StandardCharsets.US_ASCII), true);
            assertThat(h2.status(3)).isEqualTo(200);
        }
    }

    @Test
    void refusalsOfRequestsThatNeverEndLeaveNothingBehind() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (Socket s = connect()) {
                s.getOutputStream()
                        .write(("POST " + path() + " HTTP/1.1\r\nHost: x\r\nOrigin: https://" + "e".repeat(4000)
                                        + "\r\nContent-Length: 10\r\n\r\n[")
                                .getBytes(StandardCharsets.US_ASCII));
            }
            try (Socket s = connect()) {
                RawH2 h2 = new RawH2(s);
                h2.preface();
                h2.headers(1, path(), false, true, RawH2.literal("origin", "https://evil"));
                h2.reset(1);
            }
        }
        stillServes(); // and the leak detector, at PARANOID, finds no buffer left behind
    }

    @Test
    void http2RapidResetClosesThatConnectionAndOthersAreServed() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            int id = 1;
            try {
                for (int i = 0; i < 2_000; i++, id += 2) {
                    h2.headers(id, path(), false);
                    h2.reset(id);
                }
            } catch (SocketException closed) {
                // the server gave up on us first
            }
            byte[] all = readToClose(s).getBytes(StandardCharsets.ISO_8859_1);
            assertThat(RawH2.hasGoAway(all)).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
        stillServes();
    }

    @Test
    void http2ContinuationFloodClosesThatConnection() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            h2.headers(1, path(), false, false); // no END_HEADERS: CONTINUATIONs follow
            try {
                for (int i = 0; i < 10_000; i++) {
                    h2.continuation(1, RawH2.literal("x-flood-" + i, "v".repeat(100)), false);
                }
            } catch (SocketException closed) {
                // closed while we flooded
            }
            byte[] all = readToClose(s).getBytes(StandardCharsets.ISO_8859_1);
            assertThat(RawH2.hasGoAway(all)).isTrue();
        }
        stillServes();
    }

    @Test
    void http2HpackBombIsRefusedAtTheHeaderListLimitNotDecodedWhole() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            h2.hpackBomb(1, path(), 4000, 10_000); // 10 KB on the wire, 40 MB of headers decoded
            assertThat(h2.outcome(1)).isIn("reset", "goaway");
        }
        stillServes();
    }

    @Test
    void http2PingFloodFromAPeerThatNeverReadsClosesItsConnection() throws Exception {
        try (Socket s = connect()) {
            s.setReceiveBufferSize(4096);
            RawH2 h2 = new RawH2(s);
            h2.preface();
            boolean closedByServer = false;
            try {
                for (int i = 0; i < 1_000_000; i++) {
                    h2.ping(i); // each owes a PONG that this peer never reads
                }
            } catch (SocketException closed) {
                closedByServer = true;
            }
            assertThat(closedByServer)
                    .as("the server closed the flooding connection")
                    .isTrue();
        }
        stillServes();
    }

    @Test
    void http2StreamWhoseBodyNeverEndsIsResetAtTheFrameTimeout() throws Exception {
        try (Socket s = connect()) {
            RawH2 h2 = new RawH2(s);
            h2.preface();
            h2.headers(1, path(), false);
            h2.data(1, "[\"tea\"".getBytes(StandardCharsets.US_ASCII), false); // and no more
            assertThat(h2.awaitReset(1)).isTrue();
        }
        stillServes();
    }
}
