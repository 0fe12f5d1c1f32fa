package io.xrpc.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.spring.TestZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A provider and a consumer, two Spring Boot contexts with Boot's OpenTelemetry tracing, each
 * exporting its spans to memory: a call made under a parent span is one trace across both, the
 * client span the parent's child and the server span the client span's child, for a synchronous
 * and a {@code CompletableFuture} method; the trace id is in the MDC on both sides and baggage
 * reaches the provider.
 */
@Timeout(120)
class TracingTest {
    private static final String SPAN = Traced.class.getName() + "/";

    @RegisterExtension
    final TestZooKeeper zk = new TestZooKeeper();

    private ConfigurableApplicationContext start(Class<?> app, String name) {
        return new SpringApplicationBuilder(app)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.application.name=" + name,
                        "xrpc.registry.address=" + zk.address(),
                        "xrpc.server.host=127.0.0.1",
                        "xrpc.server.port=0",
                        "xrpc.server.unregister-delay=0ms",
                        "spring.main.banner-mode=off",
                        "management.tracing.sampling.probability=1.0",
                        "management.tracing.baggage.remote-fields=tenant",
                        // Spans are exported in batches; a short delay keeps the test's waits short.
                        "management.opentelemetry.tracing.export.schedule-delay=100ms")
                .run();
    }

    @Test
    void aCallUnderAParentSpanIsOneTraceAcrossProviderAndConsumerSyncAndAsync() throws Exception {
        try (ConfigurableApplicationContext provider = start(TracingApps.Provider.class, "provider");
                ConfigurableApplicationContext consumer = start(TracingApps.Consumer.class, "consumer")) {
            Tracer tracer = consumer.getBean(Tracer.class);
            Traced traced = consumer.getBean(TracingApps.Caller.class).traced;
            InMemorySpanExporter consumerSpans = consumer.getBean(InMemorySpanExporter.class);
            InMemorySpanExporter providerSpans = provider.getBean(InMemorySpanExporter.class);
            TracingApps.MdcRecorder clientMdc = consumer.getBean(TracingApps.MdcRecorder.class);

            Span parent = tracer.nextSpan().name("parent").start();
            String seen = inParent(tracer, parent, traced::whereAmI);
            parent.end();
            checkTrace(parent, "whereAmI", seen, consumerSpans, providerSpans, clientMdc);

            // Asynchronous: the caller's scope is closed before the answer arrives on an event loop.
            Span asyncParent = tracer.nextSpan().name("async parent").start();
            CompletableFuture<String> answer = inParent(tracer, asyncParent, traced::whereAmIAsync);
            String seenAsync = answer.get(10, TimeUnit.SECONDS);
            asyncParent.end();
            checkTrace(asyncParent, "whereAmIAsync", seenAsync, consumerSpans, providerSpans, clientMdc);

            // A failed call: both spans say so, with the status the caller got.
            Span failingParent = tracer.nextSpan().name("failing parent").start();
            inParent(
                    tracer,
                    failingParent,
                    () -> assertThatThrownBy(() -> traced.refuse("no"))
                            .isInstanceOfSatisfying(
                                    RpcException.class,
                                    e -> assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR)));
            failingParent.end();
            String failedTrace = failingParent.context().traceId();
            for (SpanData s : List.of(
                    await(() -> one(consumerSpans, SPAN + "refuse", SpanKind.CLIENT, failedTrace)),
                    await(() -> one(providerSpans, SPAN + "refuse", SpanKind.SERVER, failedTrace)))) {
                assertThat(s.getStatus().getStatusCode()).as(s.toString()).isEqualTo(StatusCode.ERROR);
                assertThat(s.getAttributes().get(AttributeKey.stringKey("status")))
                        .isEqualTo("APPLICATION_ERROR");
            }

            // Baggage over the W3C limit from a caller is ignored by the provider; the trace is not.
            consumer.getBean(TracingApps.OversizedBaggage.class).on = true;
            Span bigParent = tracer.nextSpan().name("oversized baggage").start();
            String seenBig = inParent(tracer, bigParent, traced::whereAmI);
            bigParent.end();
            assertThat(seenBig).startsWith(bigParent.context().traceId() + "|").endsWith("|null");
        }
    }

    @Test
    void anHttpCallCarryingTraceparentAndBaggageContinuesThatTrace() throws Exception {
        try (ConfigurableApplicationContext provider = start(TracingApps.Provider.class, "provider")) {
            InMemorySpanExporter providerSpans = provider.getBean(InMemorySpanExporter.class);
            int port = provider.getBean(io.xrpc.spring.autoconfigure.RpcServiceExporter.class)
                    .server()
                    .endpoint()
                    .port();
            String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
            String parentSpan = "00f067aa0ba902b7";
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                                            "http://127.0.0.1:" + port + "/" + Traced.class.getName() + "/whereAmI"))
                                    .header("content-type", "application/json")
                                    .header("traceparent", "00-" + traceId + "-" + parentSpan + "-01")
                                    .header("baggage", "tenant=acme")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(""))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).startsWith("\"" + traceId + "|").endsWith("|acme\"");
            SpanData server = await(() -> one(providerSpans, SPAN + "whereAmI", SpanKind.SERVER, traceId));
            assertThat(server.getParentSpanId()).isEqualTo(parentSpan);
        }
    }

    /** Runs {@code call} as a caller inside a trace would: {@code parent} current, baggage tenant=acme. */
    private static <T> T inParent(Tracer tracer, Span parent, Supplier<T> call) {
        try (Tracer.SpanInScope scope = tracer.withSpan(parent);
                BaggageInScope baggage = tracer.createBaggageInScope("tenant", "acme")) {
            return call.get();
        }
    }

    private static void checkTrace(
            Span parent,
            String method,
            String seenByProvider,
            InMemorySpanExporter consumerSpans,
            InMemorySpanExporter providerSpans,
            TracingApps.MdcRecorder clientMdc) {
        String traceId = parent.context().traceId();
        SpanData client = await(() -> one(consumerSpans, SPAN + method, SpanKind.CLIENT, traceId));
        SpanData server = await(() -> one(providerSpans, SPAN + method, SpanKind.SERVER, traceId));
        assertThat(client.getParentSpanId())
                .as("the client span's parent")
                .isEqualTo(parent.context().spanId());
        assertThat(server.getParentSpanId()).as("the server span's parent").isEqualTo(client.getSpanId());

        assertThat(client.getAttributes().get(AttributeKey.stringKey("status"))).isEqualTo("OK");
        assertThat(client.getAttributes().get(AttributeKey.stringKey("serializer")))
                .isEqualTo("kryo");
        assertThat(client.getAttributes().get(AttributeKey.stringKey("method"))).isEqualTo(method + "()");
        assertThat(client.getAttributes().get(AttributeKey.stringKey("peer"))).startsWith("127.0.0.1:");
        assertThat(server.getAttributes().get(AttributeKey.stringKey("status"))).isEqualTo("OK");
        assertThat(Integer.parseInt(server.getAttributes().get(AttributeKey.stringKey("request.size"))))
                .as("request body bytes")
                .isPositive();

        // The provider's MDC holds the server span while the implementation runs; baggage arrived.
        assertThat(seenByProvider).isEqualTo(traceId + "|" + server.getSpanId() + "|acme");
        // The consumer's MDC holds the client span while the call is sent.
        assertThat(clientMdc.seen).last().isEqualTo(traceId + "|" + client.getSpanId());
        System.out.printf("trace of %s:%n%s%n%s%n", method, describe("consumer", client), describe("provider", server));
    }

    private static String describe(String side, SpanData s) {
        return String.format(
                "%-8s %-45s %-6s trace %s span %s parent %s%n         %s",
                side,
                s.getName(),
                s.getKind(),
                s.getTraceId(),
                s.getSpanId(),
                s.getParentSpanId(),
                s.getAttributes().asMap().entrySet().stream()
                        .map(e -> e.getKey().getKey() + "=" + e.getValue())
                        .sorted()
                        .collect(Collectors.joining(" ")));
    }

    private static SpanData one(InMemorySpanExporter spans, String name, SpanKind kind, String traceId) {
        List<SpanData> found = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name)
                        && s.getKind() == kind
                        && s.getTraceId().equals(traceId))
                .toList();
        assertThat(found)
                .as(kind + " span " + name + " in trace " + traceId + " among " + spans.getFinishedSpanItems())
                .hasSize(1);
        return found.get(0);
    }

    private static SpanData await(Supplier<SpanData> span) {
        SpanData[] found = new SpanData[1];
        // Spans are exported in batches, shortly after they end.
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> found[0] = span.get());
        return found[0];
    }
}
