package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.spring.autoconfigure.RpcServiceExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /actuator/xrpc} and the {@code xrpc} health over HTTP, through Boot's web server and the
 * test client: a consumer's view of its providers as they come and go, a provider's view of what
 * it exports, and an application that has not exposed the endpoint not showing it.
 */
@Timeout(180)
class EndpointTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @RegisterExtension
    final TestZooKeeper zk = new TestZooKeeper();

    private final List<ConfigurableApplicationContext> started = new ArrayList<>();

    /** Before the extension stops ZooKeeper: extensions' after-each callbacks run after this. */
    @AfterEach
    void stopAll() {
        started.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext start(Class<?> app, WebApplicationType web, String... properties) {
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(app)
                .web(web)
                .properties(
                        "xrpc.registry.address=" + zk.address(),
                        "xrpc.server.host=127.0.0.1",
                        "xrpc.server.port=0",
                        "xrpc.server.unregister-delay=0ms",
                        "spring.main.banner-mode=off",
                        "server.address=127.0.0.1",
                        "server.port=0")
                .properties(properties)
                .run();
        started.add(ctx);
        return ctx;
    }

    private static RestTestClient http(ConfigurableApplicationContext ctx) {
        return RestTestClient.bindToServer()
                .baseUrl("http://127.0.0.1:" + ctx.getEnvironment().getProperty("local.server.port"))
                .build();
    }

    private static JsonNode get(RestTestClient http, String path) {
        String body = http.get()
                .uri(path)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        return JSON.readTree(body);
    }

    @Test
    void theEndpointShowsProvidersComingAndGoingAndHealthStaysUpWithNone() {
        RecordingAppender.clear();
        ConfigurableApplicationContext a = start(
                Apps.Provider.class,
                WebApplicationType.SERVLET,
                "test.provider-name=a",
                "management.endpoints.web.exposure.include=xrpc");
        ConfigurableApplicationContext b = start(Apps.Provider.class, WebApplicationType.NONE, "test.provider-name=b");
        ConfigurableApplicationContext consumer = start(
                Apps.Consumer.class,
                WebApplicationType.SERVLET,
                "management.endpoints.web.exposure.include=xrpc,health",
                "management.endpoint.health.show-details=always",
                "xrpc.client.load-balancer=round-robin");
        RestTestClient http = http(consumer);
        Greeter greeter = consumer.getBean(Apps.GreeterUser.class).greeter;
        String aAddress = a.getBean(RpcServiceExporter.class)
                .server()
                .advertisedEndpoint()
                .toString();
        String bAddress = b.getBean(RpcServiceExporter.class)
                .server()
                .advertisedEndpoint()
                .toString();
        // Calls until both providers have answered: each then has an open connection.
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            greeter.whoAmI();
            return bothConnected(http);
        });

        JsonNode view = get(http, "/actuator/xrpc");
        System.out.println("GET /actuator/xrpc (consumer, two providers):\n" + view.toPrettyString());
        JsonNode ref = reference(view);
        assertThat(ref.get("loadBalancer").asString()).isEqualTo("round-robin");
        assertThat(ref.get("cluster").asString()).isEqualTo("failover");
        assertThat(ref.get("serializer").asString()).isEqualTo("kryo");
        assertThat(ref.get("source").asString()).isEqualTo("registry");
        assertThat(ref.get("providerCount").asInt()).isEqualTo(2);
        assertThat(addresses(ref)).containsExactlyInAnyOrder(aAddress, bAddress);
        for (JsonNode p : ref.get("providers")) {
            assertThat(p.get("state").asString()).as(p.toString()).isEqualTo("CONNECTED");
            assertThat(p.get("connections").asInt()).isEqualTo(1);
        }
        assertThat(view.get("registry").get("connected").asBoolean()).isTrue();
        assertThat(view.get("registry").get("session").asString()).startsWith("0x");
        // Who the registry client is and the ACL of its nodes; never its password.
        assertThat(view.get("registry").get("identity").asString()).isEqualTo("digest:" + TestZooKeeper.USER);
        assertThat(view.get("registry").get("acl").asString()).isEqualTo("auth::cdrwa,world:anyone:r");
        assertThat(view.toString()).doesNotContain(TestZooKeeper.PASSWORD);
        assertThat(view.get("limits").get("maxFrameLengthBytes").asLong()).isEqualTo(8L * 1024 * 1024);
        assertThat(view.get("limits").get("client").get("timeoutMillis").asLong())
                .isEqualTo(3000);
        assertThat(view.get("server").isNull())
                .as("the consumer exports nothing")
                .isTrue();

        // The provider's own view: what it exports, and its endpoint is not the consumer's.
        JsonNode provided = get(http(a), "/actuator/xrpc");
        JsonNode service = provided.get("server").get("services").get(0);
        assertThat(service.get("key").asString()).isEqualTo(Greeter.class.getName());
        assertThat(service.get("methods").valueStream().map(JsonNode::asString).toList())
                .contains("hello(java.lang.String)", "helloAsync(java.lang.String)", "whoAmI()");
        assertThat(service.get("serializers").get(0).asString()).isEqualTo("any");
        assertThat(provided.get("server").get("address").asString()).isEqualTo(aAddress);
        assertThat(provided.get("references")).isEmpty();

        a.close();
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode r = reference(get(http, "/actuator/xrpc"));
            assertThat(r.get("providerCount").asInt()).isEqualTo(1);
            assertThat(addresses(r)).containsExactly(bAddress);
        });
        b.close();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(reference(get(http, "/actuator/xrpc"))
                                .get("providerCount")
                                .asInt())
                        .isZero());
        // No provider is a detail, not DOWN: restarting this consumer would not bring one.
        JsonNode health = get(http, "/actuator/health/xrpc");
        assertThat(health.get("status").asString()).isEqualTo("UP");
        assertThat(health.get("details")
                        .get("references")
                        .get(Greeter.class.getName())
                        .asInt())
                .isZero();
        // One WARN per reference that lost its last provider; one INFO each when a provider is back.
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(RecordingAppender.messages(
                                ch.qos.logback.classic.Level.WARN, "has no provider any more"))
                        .hasSize(2));

        ConfigurableApplicationContext c = start(Apps.Provider.class, WebApplicationType.NONE, "test.provider-name=c");
        String cAddress = c.getBean(RpcServiceExporter.class)
                .server()
                .advertisedEndpoint()
                .toString();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(addresses(reference(get(http, "/actuator/xrpc"))))
                        .containsExactly(cAddress));
        assertThat(greeter.whoAmI()).isEqualTo("c");
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(RecordingAppender.messages(
                                ch.qos.logback.classic.Level.INFO, "has 1 provider(s) now: [" + cAddress + "]"))
                        .hasSize(2));
        assertThat(RecordingAppender.messages(ch.qos.logback.classic.Level.WARN, ""))
                .as("no other warning")
                .hasSize(2);
    }

    @Test
    void theEndpointIsNotExposedUntilTheApplicationSaysSo() {
        ConfigurableApplicationContext provider = start(Apps.Provider.class, WebApplicationType.SERVLET);
        http(provider).get().uri("/actuator/xrpc").exchange().expectStatus().isNotFound();
        http(provider).get().uri("/actuator/health").exchange().expectStatus().isOk();
    }

    private static boolean bothConnected(RestTestClient http) {
        JsonNode ref = reference(get(http, "/actuator/xrpc"));
        int connected = 0;
        for (JsonNode p : ref.get("providers")) {
            connected += p.get("state").asString().equals("CONNECTED") ? 1 : 0;
        }
        return connected == 2;
    }

    /** The consumer's kryo greeter reference (its hessian one has the default timeout). */
    private static JsonNode reference(JsonNode view) {
        for (JsonNode r : view.get("references")) {
            if (r.get("key").asString().equals(Greeter.class.getName())
                    && r.get("timeoutMillis").asLong() == 5000) {
                return r;
            }
        }
        throw new AssertionError("no reference to " + Greeter.class.getName() + " in " + view);
    }

    private static List<String> addresses(JsonNode ref) {
        List<String> all = new ArrayList<>();
        ref.get("providers").forEach(p -> all.add(p.get("address").asString()));
        return all;
    }
}
