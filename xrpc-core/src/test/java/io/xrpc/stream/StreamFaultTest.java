package io.xrpc.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Flows;
import io.xrpc.testing.StreamService;
import io.xrpc.testing.StreamService.Chunk;
import io.xrpc.testing.StreamService.Tick;
import io.xrpc.testing.StreamServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams under the default settings when something gives up or goes away: a consumer that
 * cancels on either side, a deadline, a caller that stops reading, a provider that shuts down,
 * a connection that opens more streams than a provider holds.
 */
@Timeout(60)
class StreamFaultTest {
    private static final int WINDOW = ProtocolConstants.INITIAL_STREAM_MESSAGES;
    private final StreamServiceImpl impl = new StreamServiceImpl();
    private RpcServer server;
    private RpcClient client;

    @BeforeEach
    void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .shutdownGrace(Duration.ofMillis(200))
                .service(StreamService.class, impl)
                .build()
                .start();
        client = RpcClient.builder().build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private StreamService service(Duration timeout) {
        return client.proxy(
                StreamService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .timeout(timeout)
                        .build());
    }

    @Test
    void aProviderThatCancelsTheCallersStreamStillAnswersAndTheCallerStopsProducing() throws Exception {
        AtomicLong produced = new AtomicLong();
        AtomicLong cancels = new AtomicLong();
        List<String> first = service(Duration.ofSeconds(30))
                .firstOf(Flows.onCancel(Flows.range(-1, i -> "m" + i, produced), cancels::incrementAndGet), 5)
                .get(30, TimeUnit.SECONDS);
        assertThat(first).containsExactly("m0", "m1", "m2", "m3", "m4");
        // The answer ended the call: the caller's endless producer was cancelled, and was never
        // asked for more than the provider's window granted before it cancelled.
        await().atMost(Duration.ofSeconds(10)).until(() -> cancels.get() > 0);
        assertThat(produced.get()).isLessThanOrEqualTo(5 + 2 * WINDOW);
    }

    @Test
    void aProviderThatNeverReadsHoldsTheCallerAtItsWindowUntilTheDeadline() throws Exception {
        AtomicLong produced = new AtomicLong();
        AtomicLong cancels = new AtomicLong();
        var answer = service(Duration.ofSeconds(5))
                .hold(Flows.onCancel(Flows.range(-1, i -> "m" + i, produced), cancels::incrementAndGet));
        await().atMost(Duration.ofSeconds(4)).until(() -> produced.get() == WINDOW);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(4)).until(() -> produced.get() == WINDOW);
        assertThatThrownBy(() -> answer.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
        await().atMost(Duration.ofSeconds(10)).until(() -> cancels.get() > 0);
        assertThat(produced.get()).isEqualTo(WINDOW);
    }

    @Test
    void theDeadlineEndsAStreamOnBothSides() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(3);
        service(Duration.ofMillis(500)).endless("D").subscribe(r);
        assertThat(r.await(30)).isTrue();
        assertThat(r.items).hasSize(3);
        assertThat(r.error.get())
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() > 0);
        assertThat(r.terminals.get()).isEqualTo(1);
    }

    @Test
    void aProviderShuttingDownEndsItsOpenStreamsUnavailableAtOnce() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(5);
        service(Duration.ofSeconds(30)).endless("S").subscribe(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> r.items.size() == 5 && impl.produced.get() == WINDOW);
        server.close();
        // Told at once, though it asked for no more: what the provider sent and it never asked for is dropped.
        assertThat(r.await(30)).isTrue();
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
            assertThat(e.getMessage())
                    .containsPattern("after it sent \\d+ messages")
                    .contains("shut down");
        });
        assertThat(r.items).hasSize(5);
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() > 0);
    }

    @Test
    void theProvidersFailureComesAfterTheMessagesItSentEvenToASlowSubscriber() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(1);
        service(Duration.ofSeconds(30)).failing(20, "late").subscribe(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> r.items.size() == 1);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> r.terminals.get() == 0);
        r.request(100);
        assertThat(r.await(30)).isTrue();
        assertThat(r.items).hasSize(20);
        assertThat(r.error.get())
                .isInstanceOfSatisfying(
                        RpcException.class,
                        e -> assertThat(e.getMessage()).contains("after it sent 20 messages", "late"));
    }

    @Test
    void aConnectionHoldsAHundredStreamsAndIsRefusedBeyondThemWhileCallsGoOn() throws Exception {
        StreamService s = service(Duration.ofSeconds(30));
        List<Flows.Recorder<Tick>> open = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Flows.Recorder<Tick> r = new Flows.Recorder<>(1);
            s.endless("S" + i).subscribe(r);
            open.add(r);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> open.stream().allMatch(r -> r.items.size() == 1));
        Flows.Recorder<Tick> extra = new Flows.Recorder<>(1);
        s.endless("over").subscribe(extra);
        assertThat(extra.await(30)).isTrue();
        assertThat(extra.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED);
            assertThat(e.getMessage()).contains("100 streams open");
        });
        assertThat(s.ping("still")).isEqualTo("pong still");

        // One ends: its place is free again.
        open.get(0).cancel();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Flows.Recorder<Tick> again = new Flows.Recorder<>(1);
            s.endless("again").subscribe(again);
            await().atMost(Duration.ofSeconds(10)).until(() -> again.items.size() == 1 || again.done.getCount() == 0);
            assertThat(again.items).hasSize(1);
            again.cancel();
        });
        open.forEach(Flows.Recorder::cancel);
        assertThat(client.openConnections()).isEqualTo(1);
    }

    @Test
    void aProducerThatIgnoresDemandIsStoppedAtItsFirstUnaskedItemNotBuffered() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service(Duration.ofSeconds(30)).rude(100_000).subscribe(r);
        assertThat(r.await(30)).isTrue();
        // It is asked for items as credit comes; the first item beyond what was asked ends the
        // stream (told at once: not an implementation's own failure), long before its 100,000.
        assertThat(r.items).hasSizeLessThan(100_000);
        assertThat(r.error.get())
                .isInstanceOfSatisfying(
                        RpcException.class,
                        e -> assertThat(e.getMessage())
                                .containsPattern("the producer sent message \\d+ that was not requested"));
        assertThat(impl.cancelledFeeds.get()).isEqualTo(1);
    }

    @Test
    void anImplementationWhoseSubscriberThrowsEndsTheCallNamingWhatItThrew() throws Exception {
        var answer = service(Duration.ofSeconds(30))
                .upload(Flows.range(
                        2, i -> i == 0 ? new Chunk(0, null) : new Chunk(1, new byte[100_000]), new AtomicLong()));
        assertThatThrownBy(() -> answer.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                    assertThat(e.remoteClassName()).isEqualTo(NullPointerException.class.getName());
                    assertThat(e.getMessage()).contains("subscriber of the caller's stream");
                });
        assertThat(service(Duration.ofSeconds(30)).ping("after")).isEqualTo("pong after");
    }

    @Test
    void aCallersSubscriberThatThrowsCancelsTheStreamOnTheProvider() throws Exception {
        List<Tick> got = new CopyOnWriteArrayList<>();
        List<Throwable> ends = new CopyOnWriteArrayList<>();
        service(Duration.ofSeconds(30)).endless("T").subscribe(new Flow.Subscriber<Tick>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Tick t) {
                got.add(t);
                if (got.size() == 3) {
                    throw new IllegalStateException("a bug in the caller's subscriber");
                }
            }

            @Override
            public void onError(Throwable t) {
                ends.add(t);
            }

            @Override
            public void onComplete() {
                ends.add(null);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
        assertThat(got).hasSize(3); // nothing after the throw (rule 2.13: it counts as a cancel)
        assertThat(ends).isEmpty();
    }

    @Test
    void anInterceptorThatAsksSeesEachMessageBothWays() throws Exception {
        AtomicLong in = new AtomicLong();
        AtomicLong out = new AtomicLong();
        try (RpcServer s = RpcServer.builder()
                .host("127.0.0.1")
                .interceptor((inv, next) -> {
                    int i = inv.method().streamParameter();
                    if (i >= 0) { // the caller's messages: wrapped before the implementation reads them
                        @SuppressWarnings("unchecked")
                        Flow.Publisher<Object> caller = (Flow.Publisher<Object>) inv.arguments()[i];
                        inv.arguments()[i] = Streams.peek(caller, m -> in.incrementAndGet());
                    }
                    return next.proceed(inv)
                            .thenApply(r -> r instanceof Flow.Publisher<?> p // the provider's
                                    ? Streams.peek(p, m -> out.incrementAndGet())
                                    : r);
                })
                .service(StreamService.class, new StreamServiceImpl())
                .build()
                .start()) {
            StreamService svc = client.proxy(
                    StreamService.class,
                    ReferenceOptions.builder().address(s.endpoint()).build());
            Flows.Recorder<String> r = new Flows.Recorder<>(Long.MAX_VALUE);
            svc.echo(Flows.range(25, i -> "m" + i, new AtomicLong())).subscribe(r);
            assertThat(r.await(30)).isTrue();
            assertThat(r.items).hasSize(25);
            assertThat(in.get()).isEqualTo(25);
            assertThat(out.get()).isEqualTo(25);
        }
    }

    @Test
    void aServerInterceptorSeesAStreamStartAndItsEndStatus() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (RpcServer s = RpcServer.builder()
                .host("127.0.0.1")
                .interceptor((inv, next) -> {
                    String name = inv.method().name();
                    seen.add("start " + name);
                    inv.whenAnswered(status -> seen.add("end " + name + " " + status));
                    return next.proceed(inv);
                })
                .service(StreamService.class, new StreamServiceImpl())
                .build()
                .start()) {
            StreamService svc = client.proxy(
                    StreamService.class,
                    ReferenceOptions.builder().address(s.endpoint()).build());
            Flows.Recorder<Tick> ok = new Flows.Recorder<>(Long.MAX_VALUE);
            svc.ticks("I", 10).subscribe(ok);
            assertThat(ok.await(30)).isTrue();
            Flows.Recorder<Tick> failed = new Flows.Recorder<>(Long.MAX_VALUE);
            svc.failing(2, "x").subscribe(failed);
            assertThat(failed.await(30)).isTrue();
            Flows.Recorder<Tick> cancelled = new Flows.Recorder<>(1);
            svc.endless("I").subscribe(cancelled);
            await().atMost(Duration.ofSeconds(10)).until(() -> cancelled.items.size() == 1);
            cancelled.cancel();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(seen)
                            .containsExactly(
                                    "start ticks",
                                    "end ticks OK",
                                    "start failing",
                                    "end failing APPLICATION_ERROR",
                                    "start endless",
                                    "end endless CANCELLED"));
        }
    }

    @Test
    void aSubscriberCancellingOnTheCallersSideCancelsTheProvidersProducer() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service(Duration.ofSeconds(30)).endless("C").subscribe(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> r.items.size() >= 100);
        r.cancel();
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
        assertThat(r.terminals.get()).isZero();
        // The connection goes on serving.
        assertThat(service(Duration.ofSeconds(30)).ping("after")).isEqualTo("pong after");
    }
}
