package io.xrpc.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.server.RpcServer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Flux and Mono in a service interface, on both sides, checked with Reactor's own StepVerifier. */
@Timeout(60)
class ReactorStreamTest {
    public record Quote(String symbol, long seq) {}

    public interface Quotes {
        Flux<Quote> quotes(String symbol, int count);

        Flux<Quote> endless(String symbol);

        Mono<Long> total(Flux<Quote> quotes);

        Flux<String> shout(Flux<String> words);

        Mono<String> hello(String name);

        Flux<Quote> broken(int count);
    }

    static final class QuotesImpl implements Quotes {
        final AtomicLong produced = new AtomicLong();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicInteger hellos = new AtomicInteger();

        @Override
        public Flux<Quote> quotes(String symbol, int count) {
            return Flux.range(0, count).map(i -> new Quote(symbol, i));
        }

        @Override
        public Flux<Quote> endless(String symbol) {
            return Flux.<Quote, Long>generate(() -> 0L, (i, sink) -> {
                        produced.incrementAndGet();
                        sink.next(new Quote(symbol, i));
                        return i + 1;
                    })
                    .doOnCancel(cancelled::incrementAndGet);
        }

        @Override
        public Mono<Long> total(Flux<Quote> quotes) {
            return quotes.map(Quote::seq).reduce(0L, Long::sum);
        }

        @Override
        public Flux<String> shout(Flux<String> words) {
            return words.map(w -> w.toUpperCase(Locale.ROOT) + "!");
        }

        @Override
        public Mono<String> hello(String name) {
            return Mono.fromSupplier(() -> {
                hellos.incrementAndGet();
                return "hello " + name;
            });
        }

        @Override
        public Flux<Quote> broken(int count) {
            return Flux.range(0, count)
                    .map(i -> new Quote("B", i))
                    .concatWith(Flux.error(new IllegalStateException("the feed broke")));
        }
    }

    private final QuotesImpl impl = new QuotesImpl();
    private RpcServer server;
    private RpcClient client;
    private Quotes quotes;

    @BeforeEach
    void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Quotes.class, impl)
                .build()
                .start();
        client = RpcClient.builder().build();
        quotes = client.proxy(
                Quotes.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .timeout(Duration.ofSeconds(30))
                        .build());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void aFluxStreamsEveryElementInOrder() {
        StepVerifier.create(quotes.quotes("ACME", 500).map(Quote::seq))
                .expectNextSequence(Flux.range(0, 500).map(Long::valueOf).toIterable())
                .verifyComplete();
    }

    @Test
    void theSubscribersDemandIsTheProvidersAndCancelReachesIt() {
        StepVerifier.create(quotes.endless("E"), 0)
                .thenRequest(5)
                .expectNextCount(5)
                .thenCancel()
                .verify(Duration.ofSeconds(20));
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelled.get() == 1);
        // Made as asked, a window at most ahead: not the endless stream a Flux.generate could give.
        assertThat(impl.produced.get()).isLessThanOrEqualTo(5 + 2L * ProtocolConstants.INITIAL_STREAM_MESSAGES + 256);
    }

    @Test
    void aFluxGoesUpAndAMonoComesBack() {
        StepVerifier.create(quotes.total(Flux.range(0, 1000).map(i -> new Quote("U", i))))
                .expectNext(999L * 1000 / 2)
                .verifyComplete();
    }

    @Test
    void aFluxGoesBothWays() {
        StepVerifier.create(quotes.shout(Flux.just("a", "b", "c")))
                .expectNext("A!", "B!", "C!")
                .verifyComplete();
    }

    @Test
    void aMonoIsColdAndCallsOncePerSubscriber() {
        Mono<String> hello = quotes.hello("mono");
        assertThat(impl.hellos.get()).isZero(); // nothing is sent before it is subscribed
        StepVerifier.create(hello).expectNext("hello mono").verifyComplete();
        StepVerifier.create(hello).expectNext("hello mono").verifyComplete();
        assertThat(impl.hellos.get()).isEqualTo(2);
    }

    @Test
    void aFailingFluxEndsWithTheProvidersExceptionAfterItsElements() {
        StepVerifier.create(quotes.broken(3))
                .expectNextCount(3)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(RpcException.class);
                    assertThat(((RpcException) e).status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                    assertThat(e.getMessage()).contains("IllegalStateException", "the feed broke");
                })
                .verify(Duration.ofSeconds(20));
    }
}
