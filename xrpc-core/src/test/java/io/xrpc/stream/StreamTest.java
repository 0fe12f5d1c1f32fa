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
import io.xrpc.testing.Codecs;
import io.xrpc.testing.Flows;
import io.xrpc.testing.StreamService;
import io.xrpc.testing.StreamService.Chunk;
import io.xrpc.testing.StreamService.Summary;
import io.xrpc.testing.StreamService.Tick;
import io.xrpc.testing.StreamServiceImpl;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each stream shape end to end, over a real connection, through every serializer. */
@Timeout(60)
class StreamTest {
    private final StreamServiceImpl impl = new StreamServiceImpl();
    private RpcServer server;
    private RpcClient client;

    @BeforeEach
    void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
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

    private StreamService service(String serializer, String compressor) {
        return client.proxy(
                StreamService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .compressor(compressor)
                        .timeout(Duration.ofSeconds(30))
                        .build());
    }

    @ParameterizedTest
    @MethodSource(Codecs.ALL)
    void aServerStreamDeliversEveryMessageInOrderThenCompletes(String serializer, String compressor) throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service(serializer, compressor).ticks("ACME", 1000).subscribe(r);
        assertThat(r.await(30)).isTrue();
        assertThat(r.error.get()).isNull();
        assertThat(r.items).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(r.items.get(i).seq()).isEqualTo(i);
        }
        assertThat(r.items.get(0).symbol()).isEqualTo("ACME");
    }

    @ParameterizedTest
    @MethodSource(Codecs.ALL)
    void aClientStreamSendsEveryMessageAndGetsOneAnswer(String serializer, String compressor) throws Exception {
        Summary s = service(serializer, compressor)
                .upload(Flows.range(500, i -> new Chunk((int) i, new byte[(int) (i % 7) * 100]), new AtomicLong()))
                .get(30, TimeUnit.SECONDS);
        assertThat(s.chunks()).isEqualTo(500);
        assertThat(s.indexes()).startsWith(0, 1, 2).endsWith(499);
        long bytes = 0;
        for (int i = 0; i < 500; i++) {
            bytes += (i % 7) * 100;
        }
        assertThat(s.bytes()).isEqualTo(bytes);
    }

    @ParameterizedTest
    @MethodSource(Codecs.ALL)
    void aBidirectionalStreamEchoesEachMessage(String serializer, String compressor) throws Exception {
        Flows.Recorder<String> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service(serializer, compressor)
                .echo(Flows.range(300, i -> "m" + i, new AtomicLong()))
                .subscribe(r);
        assertThat(r.await(30)).isTrue();
        assertThat(r.error.get()).isNull();
        assertThat(r.items).hasSize(300).startsWith("M0", "M1").endsWith("M299");
    }

    @Test
    void aFailingStreamEndsWithTheProvidersExceptionAfterItsMessages() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service("kryo", "none").failing(5, "the feed broke").subscribe(r);
        assertThat(r.await(30)).isTrue();
        assertThat(r.items).hasSize(5);
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
            assertThat(e.getMessage()).contains("IllegalStateException", "the feed broke");
        });
    }

    @Test
    void aConsumerThatRequestsNothingStopsTheProducerAtTheWindow() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(0);
        service("kryo", "none").endless("E").subscribe(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.produced.get() > 0);
        // Held there: a producer that were not held back would go on producing meanwhile.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> impl.produced.get() == ProtocolConstants.INITIAL_STREAM_MESSAGES);
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> impl.produced.get() == ProtocolConstants.INITIAL_STREAM_MESSAGES);
        r.request(10);
        await().atMost(Duration.ofSeconds(10)).until(() -> r.items.size() == 10);
        r.cancel();
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
    }

    /** A client stream whose provider would have to block a call thread to read it. */
    public interface BlockingUpload {
        String upload(Flow.Publisher<String> lines);
    }

    @Test
    void aClientStreamThatDoesNotAnswerWithAFutureIsRefusedAtStartUpSayingWhy() {
        assertThatThrownBy(() -> RpcServer.builder()
                        .host("127.0.0.1")
                        .service(BlockingUpload.class, lines -> "read")
                        .build())
                .hasMessageContaining("upload")
                .hasMessageContaining("expected: CompletableFuture<R>");
        assertThatThrownBy(() -> client.proxy(
                        BlockingUpload.class,
                        ReferenceOptions.builder().address(server.endpoint()).build()))
                .hasMessageContaining("expected: CompletableFuture<R>");
    }

    @Test
    void ordinaryCallsShareTheConnectionWithStreams() throws Exception {
        StreamService s = service("kryo", "none");
        Flows.Recorder<Tick> r = new Flows.Recorder<>(0);
        s.endless("E").subscribe(r);
        for (int i = 0; i < 50; i++) {
            assertThat(s.ping("x" + i)).isEqualTo("pong x" + i);
        }
        r.cancel();
        assertThat(client.openConnections()).isEqualTo(1);
    }
}
