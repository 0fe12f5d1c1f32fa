package io.xrpc.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Invocation;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.stream.Streams;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON calls over HTTP/1.1 on a provider's own port, with the JDK's HTTP client: Connect's unary
 * mapping, errors with their HTTP statuses, declared exceptions with their fields, the deadline
 * header, credentials through the server's authenticator, gzip both ways, CORS, and a binary XRpc
 * call on the same port beside them.
 */
@Timeout(60)
class HttpJsonTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static RpcServer server;
    static String base;
    static final List<String> intercepted = new CopyOnWriteArrayList<>();
    static final ShopImpl impl = new ShopImpl();
    static final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    static void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Shop.class, impl)
                .httpAllowedOrigins(List.of("https://app.example"))
                .httpConsole(true)
                .authenticator((credentials, service, method, peer) ->
                        method.name().equals("secret") && !"Bearer good".equals(credentials)
                                ? "a valid bearer token is required"
                                : null)
                .interceptor((inv, next) -> {
                    intercepted.add(
                            inv.method().name() + " " + inv.attachments().get(Invocation.CREDENTIALS));
                    return next.proceed(inv);
                })
                .build()
                .start();
        base = "http://127.0.0.1:" + server.endpoint().port() + "/" + Shop.class.getName() + "/";
    }

    @AfterAll
    static void stop() {
        impl.release.countDown();
        server.close();
    }

    static HttpResponse<String> post(String method, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + method))
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        b.header("content-type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) {
        return JSON.readTree(r.body());
    }

    @Test
    void aMethodOfOneParameterTakesTheBodyAsThatParameter() throws Exception {
        HttpResponse<String> r = post("echo", "{\"sku\":\"tea\",\"quantity\":2}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(json(r).get("sku").asString()).isEqualTo("tea");
        assertThat(json(r).get("quantity").asInt()).isEqualTo(2);
    }

    @Test
    void aMethodOfSeveralParametersTakesAnArrayAndAVoidMethodAnswersAnEmptyObject() throws Exception {
        HttpResponse<String> r = post("place", "[\"tea\", 3]");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("quantity").asInt()).isEqualTo(3);
        HttpResponse<String> v = post("ping", "");
        assertThat(v.statusCode()).isEqualTo(200);
        assertThat(v.body()).isEqualTo("{}");
    }

    @Test
    void aDeclaredExceptionArrivesWithItsClassMessageAndFields() throws Exception {
        HttpResponse<String> r = post("place", "[\"saffron\", 5]");
        assertThat(r.statusCode()).isEqualTo(500);
        JsonNode e = json(r);
        assertThat(e.get("code").asString()).isEqualTo("unknown");
        assertThat(e.get("xrpcStatus").asString()).isEqualTo("APPLICATION_ERROR");
        assertThat(e.get("exception").get("class").asString()).isEqualTo(OutOfStock.class.getName());
        assertThat(e.get("exception").get("message").asString()).contains("saffron");
        assertThat(e.get("exception").get("fields").get("sku").asString()).isEqualTo("saffron");
        assertThat(e.get("exception").get("fields").get("left").asInt()).isEqualTo(1);
    }

    @Test
    void anOverloadedNameIsRefusedNamingEachAndASignatureInThePathCallsOne() throws Exception {
        HttpResponse<String> r = post("hello", "\"x\"");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("code").asString()).isEqualTo("invalid_argument");
        assertThat(json(r).get("message").asString())
                .contains("overloaded", "hello(java.lang.String)", "hello(java.lang.String,int)");
        HttpResponse<String> one = post("hello(java.lang.String,int)", "[\"x\", 2]");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.body()).isEqualTo("\"hello x x\"");
    }

    @Test
    void anUnknownMethodOrServiceIsNotFoundAsTheRouterSaysIt() throws Exception {
        HttpResponse<String> r = post("nothing", "{}");
        assertThat(r.statusCode()).isEqualTo(501);
        assertThat(json(r).get("code").asString()).isEqualTo("unimplemented");
        assertThat(json(r).get("xrpcStatus").asString()).isEqualTo("METHOD_NOT_FOUND");
        HttpRequest q = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.endpoint().port() + "/com.acme.Nope/x"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        HttpResponse<String> s = http.send(q, HttpResponse.BodyHandlers.ofString());
        assertThat(s.statusCode()).isEqualTo(501);
        assertThat(json(s).get("xrpcStatus").asString()).isEqualTo("SERVICE_NOT_FOUND");
        assertThat(json(s).get("message").asString()).contains("com.acme.Nope");
    }

    @Test
    void anArgumentThatCannotBeReadIsAnInvalidArgumentNamingIt() throws Exception {
        HttpResponse<String> r = post("echo", "{\"sku\": [1, 2], \"quantity\": \"many\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("code").asString()).isEqualTo("invalid_argument");
        assertThat(json(r).get("message").asString()).contains("cannot read");
        HttpResponse<String> broken = post("echo", "{\"sku\": ");
        assertThat(broken.statusCode()).isEqualTo(400);
    }

    @Test
    void theDeadlineHeaderEndsACallThatRunsLongerWithDeadlineExceeded() throws Exception {
        HttpResponse<String> r = post("hang", "", "connect-timeout-ms", "200");
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(json(r).get("code").asString()).isEqualTo("deadline_exceeded");
        assertThat(json(r).get("message").asString()).contains("200 ms");
        assertThat(impl.hangsReturned.get()).isZero(); // answered at the deadline, not when the method returned
        HttpResponse<String> bad = post("ping", "", "connect-timeout-ms", "soon");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).get("message").asString()).contains("Connect-Timeout-Ms");
    }

    @Test
    void credentialsGoThroughTheAuthenticatorAndTheInterceptorsSeeThem() throws Exception {
        HttpResponse<String> refused = post("secret", "");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(json(refused).get("code").asString()).isEqualTo("unauthenticated");
        assertThat(json(refused).get("message").asString()).contains("a valid bearer token is required");
        HttpResponse<String> ok = post("secret", "", "authorization", "Bearer good");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("\"s3cret\"");
        assertThat(intercepted).contains("secret Bearer good");
    }

    @Test
    void gzipBodiesAreReadAndLargeAnswersAreGzipWhenAccepted() throws Exception {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            g.write("[\"tea\", 4]".getBytes(StandardCharsets.UTF_8));
        }
        HttpRequest q = HttpRequest.newBuilder(URI.create(base + "place"))
                .header("content-encoding", "gzip")
                .header("accept-encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(z.toByteArray()))
                .build();
        HttpResponse<String> r = http.send(q, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("quantity").asInt()).isEqualTo(4);

        HttpRequest big = HttpRequest.newBuilder(URI.create(base + "catalog"))
                .header("accept-encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofString("2000"))
                .build();
        HttpResponse<byte[]> b = http.send(big, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(b.statusCode()).isEqualTo(200);
        assertThat(b.headers().firstValue("content-encoding")).hasValue("gzip");
        byte[] plain = new GZIPInputStream(new java.io.ByteArrayInputStream(b.body())).readAllBytes();
        assertThat(JSON.readTree(plain).size()).isEqualTo(2000);
        assertThat(plain.length).isGreaterThan(b.body().length);

        ByteArrayOutputStream bomb = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(bomb)) {
            g.write(new byte[16 * 1024 * 1024]); // 16 MiB of zeros, over the 8 MiB frame limit once inflated
        }
        HttpRequest q2 = HttpRequest.newBuilder(URI.create(base + "place"))
                .header("content-encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bomb.toByteArray()))
                .build();
        HttpResponse<String> refused = http.send(q2, HttpResponse.BodyHandlers.ofString());
        // Inflated by the provider after the authenticator, off the event loop, as a binary call's
        // arguments are, and stopped at the limit.
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(json(refused).get("message").asString()).contains("more than the limit");
    }

    @Test
    void aBrowserFromAnOriginNotNamedIsRefusedAndANamedOneIsAllowed() throws Exception {
        HttpResponse<String> refused = post("ping", "", "origin", "https://evil.example");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(json(refused).get("message").asString()).contains("https://evil.example", "httpAllowedOrigins");
        // The server's own origin (a page it served) is not cross-origin: allowed without a listing.
        HttpResponse<String> same = post(
                "ping", "", "origin", "http://127.0.0.1:" + server.endpoint().port());
        assertThat(same.statusCode()).isEqualTo(200);
        assertThat(same.headers().firstValue("access-control-allow-origin")).isEmpty();
        // ... but not by a name: a name the peer chose may be an attacker's, rebound to this
        // server's address (DNS rebinding), so a page there is refused as any other origin.
        String host = "rebound.example:" + server.endpoint().port();
        try (java.net.Socket raw =
                new java.net.Socket("127.0.0.1", server.endpoint().port())) {
            raw.setSoTimeout(20_000);
            raw.getOutputStream()
                    .write(("POST /" + Shop.class.getName() + "/ping HTTP/1.1\r\nHost: " + host + "\r\nOrigin: http://"
                                    + host + "\r\nContent-Type: application/json\r\nContent-Length: 0\r\n"
                                    + "Connection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(raw.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 403").contains("rebound.example");
        }
        HttpResponse<String> ok = post("ping", "", "origin", "https://app.example");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example");
        HttpRequest preflight = HttpRequest.newBuilder(URI.create(base + "ping"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("origin", "https://app.example")
                .header("access-control-request-method", "POST")
                .build();
        HttpResponse<String> p = http.send(preflight, HttpResponse.BodyHandlers.ofString());
        assertThat(p.statusCode()).isEqualTo(204);
        assertThat(p.headers().firstValue("access-control-allow-headers").orElse(""))
                .contains("authorization");
    }

    @Test
    void otherMethodsAndContentTypesAreRefusedSayingWhatIsServed() throws Exception {
        HttpResponse<String> get = http.send(
                HttpRequest.newBuilder(URI.create(base + "ping")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(json(get).get("message").asString()).contains("POST /{service}/{method}");
        HttpResponse<String> xml = http.send(
                HttpRequest.newBuilder(URI.create(base + "ping"))
                        .header("content-type", "application/xml")
                        .POST(HttpRequest.BodyPublishers.ofString("<x/>"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(xml.statusCode()).isEqualTo(415);
        assertThat(json(xml).get("message").asString()).contains("application/json");
    }

    @Test
    void aServerStreamArrivesAsOneJsonValueALineThroughManyWindows() throws Exception {
        HttpResponse<java.util.stream.Stream<String>> r = http.send(
                HttpRequest.newBuilder(URI.create(base + "orders"))
                        .header("content-type", "application/json")
                        .header("connect-timeout-ms", "30000")
                        .POST(HttpRequest.BodyPublishers.ofString("[5000, false]"))
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/x-ndjson");
        List<String> lines = r.body().toList();
        assertThat(lines).hasSize(5000); // five windows of the provider's: credit went back as lines were sent
        assertThat(lines.get(0)).isEqualTo("{\"sku\":\"o0\",\"quantity\":0}");
        assertThat(lines.get(4999)).isEqualTo("{\"sku\":\"o4999\",\"quantity\":4999}");
    }

    @Test
    void aServerStreamAsServerSentEventsEndsWithAnErrorEventWhenItFails() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + "orders"))
                        .header("content-type", "application/json")
                        .header("accept", "text/event-stream")
                        .POST(HttpRequest.BodyPublishers.ofString("[2, true]"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(r.body())
                .startsWith("data: {\"sku\":\"o0\",\"quantity\":0}\n\ndata: {\"sku\":\"o1\",\"quantity\":1}\n\n"
                        + "event: error\ndata: {\"code\":\"unknown\"")
                .contains("the warehouse burned down")
                .endsWith("}\n\n");
        HttpResponse<String> lines = post("orders", "[1, true]");
        assertThat(lines.body()).startsWith("{\"sku\":\"o0\",\"quantity\":0}\n{\"error\":{\"code\":\"unknown\"");
    }

    @Test
    void aClientStreamIsRefusedOverHttpSayingWhatIsServed() throws Exception {
        HttpResponse<String> r = post("count", "[]");
        assertThat(r.statusCode()).isEqualTo(501);
        assertThat(json(r).get("message").asString()).contains("takes a stream from its caller", "server streams");
    }

    @Test
    void anEndlessStreamEndsAtItsDeadlineWithAnErrorLine() throws Exception {
        HttpResponse<String> r = post("endless", "", "connect-timeout-ms", "300");
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> lines = r.body().lines().toList();
        assertThat(lines.get(0)).isEqualTo("{\"sku\":\"e\",\"quantity\":0}");
        assertThat(lines.get(lines.size() - 1)).startsWith("{\"error\":{\"code\":\"deadline_exceeded\"");
    }

    @Test
    void binaryXrpcCallsShareThePortWithHttp() throws Exception {
        try (RpcClient c = RpcClient.builder().build()) {
            Shop shop = c.proxy(
                    Shop.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(shop.place("tea", 7).quantity()).isEqualTo(7);
        }
        assertThat(post("place", "[\"tea\", 8]").statusCode()).isEqualTo(200);
    }

    @Test
    void manyCallsOnOneKeptAliveConnectionAnswerInOrder() throws Exception {
        for (int i = 0; i < 50; i++) {
            HttpResponse<String> r = post("place", "[\"tea\", " + i + "]");
            assertThat(json(r).get("quantity").asInt()).isEqualTo(i);
        }
    }

    public interface Shop {
        Order echo(Order order);

        Order place(String sku, int quantity) throws OutOfStock;

        void ping();

        String hello(String name);

        String hello(String name, int times);

        String secret();

        String hang();

        List<Order> catalog(int size);

        /** A server stream of {@code count} orders, failing after them when {@code fail}. */
        Flow.Publisher<Order> orders(int count, boolean fail);

        /** Orders without end, counted in {@link ShopImpl#produced}. */
        Flow.Publisher<Order> endless();

        /** A client stream: not served over HTTP. */
        java.util.concurrent.CompletableFuture<Integer> count(Flow.Publisher<Order> orders);
    }

    public record Order(String sku, int quantity) {}

    public static class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;
        final String sku;
        final int left;

        public OutOfStock(String sku, int left) {
            super("out of " + sku + ": " + left + " left");
            this.sku = sku;
            this.left = left;
        }
    }

    static final class ShopImpl implements Shop {
        /** Lets {@link #hang} return. */
        final CountDownLatch release = new CountDownLatch(1);

        final java.util.concurrent.atomic.AtomicInteger hangsReturned = new java.util.concurrent.atomic.AtomicInteger();

        final java.util.concurrent.atomic.AtomicInteger hangsStarted = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger placed = new java.util.concurrent.atomic.AtomicInteger();

        /** Orders {@link #endless} made, over all its calls. */
        final java.util.concurrent.atomic.AtomicLong produced = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public Flow.Publisher<Order> orders(int count, boolean fail) {
            Flow.Publisher<Order> all = Streams.fromStream(
                    () -> java.util.stream.IntStream.range(0, count).mapToObj(i -> new Order("o" + i, i)));
            if (!fail) {
                return all;
            }
            return Streams.fromStream(() -> java.util.stream.Stream.concat(
                    java.util.stream.IntStream.range(0, count).mapToObj(i -> new Order("o" + i, i)),
                    java.util.stream.Stream.<Order>generate(() -> {
                                throw new IllegalStateException("the warehouse burned down");
                            })
                            .limit(1)));
        }

        @Override
        public Flow.Publisher<Order> endless() {
            return Streams.fromStream(
                    () -> java.util.stream.Stream.iterate(0, i -> i + 1).map(i -> {
                        produced.incrementAndGet();
                        return new Order("e", i);
                    }));
        }

        @Override
        public java.util.concurrent.CompletableFuture<Integer> count(Flow.Publisher<Order> orders) {
            return java.util.concurrent.CompletableFuture.completedFuture(0);
        }

        @Override
        public Order echo(Order order) {
            return order;
        }

        @Override
        public Order place(String sku, int quantity) throws OutOfStock {
            placed.incrementAndGet();
            if (sku.equals("saffron")) {
                throw new OutOfStock(sku, 1);
            }
            return new Order(sku, quantity);
        }

        @Override
        public void ping() {}

        @Override
        public String hello(String name) {
            return "hello " + name;
        }

        @Override
        public String hello(String name, int times) {
            return "hello" + (" " + name).repeat(times);
        }

        @Override
        public String secret() {
            return "s3cret";
        }

        @Override
        public String hang() {
            hangsStarted.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hangsReturned.incrementAndGet();
            return "late";
        }

        @Override
        public List<Order> catalog(int size) {
            List<Order> all = new java.util.ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                all.add(new Order("sku-" + i, i));
            }
            return all;
        }
    }
}
