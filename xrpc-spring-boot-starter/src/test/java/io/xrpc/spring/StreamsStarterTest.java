package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** README's Flux and Mono service, exported with @RpcService and injected with @RpcReference. */
@Timeout(120)
class StreamsStarterTest {
    @RegisterExtension
    final TestZooKeeper zk = new TestZooKeeper();

    public interface QuoteService {
        Flux<Double> quotes(String symbol);

        Flux<String> chat(Flux<String> messages);

        Mono<Double> last(String symbol);
    }

    @RpcService
    static class QuoteServiceImpl implements QuoteService {
        static final AtomicInteger CANCELLED = new AtomicInteger();

        @Override
        public Flux<Double> quotes(String symbol) {
            return Flux.<Double, Double>generate(() -> 100.0, (p, sink) -> {
                        sink.next(p);
                        return p + 1;
                    })
                    .doOnCancel(CANCELLED::incrementAndGet);
        }

        @Override
        public Flux<String> chat(Flux<String> messages) {
            return messages.map(m -> "echo " + m);
        }

        @Override
        public Mono<Double> last(String symbol) {
            return Mono.just(101.5);
        }
    }

    static class Ticker {
        @RpcReference(timeoutMillis = 60_000)
        QuoteService quotes;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(QuoteServiceImpl.class)
    static class Provider {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Ticker.class)
    static class Consumer {}

    private ConfigurableApplicationContext start(Class<?> app) {
        return new SpringApplicationBuilder(app)
                .web(WebApplicationType.NONE)
                .properties(
                        "xrpc.registry.address=" + zk.getConnectString(),
                        "xrpc.registry.username=" + TestZooKeeper.USER,
                        "xrpc.registry.password=" + TestZooKeeper.PASSWORD,
                        "xrpc.server.host=127.0.0.1",
                        "xrpc.server.port=0",
                        "xrpc.server.unregister-delay=300ms",
                        "spring.main.banner-mode=off")
                .run();
    }

    @Test
    void fluxAndMonoThroughTheStarter() {
        try (ConfigurableApplicationContext provider = start(Provider.class);
                ConfigurableApplicationContext consumer = start(Consumer.class)) {
            QuoteService quotes = consumer.getBean(Ticker.class).quotes;
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> quotes.last("ACME").block(Duration.ofSeconds(5)) == 101.5);

            StepVerifier.create(quotes.quotes("ACME").take(10))
                    .expectNext(100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0)
                    .verifyComplete();
            await().atMost(Duration.ofSeconds(10)).until(() -> QuoteServiceImpl.CANCELLED.get() == 1);

            StepVerifier.create(quotes.chat(Flux.just("hi", "there")))
                    .expectNext("echo hi", "echo there")
                    .verifyComplete();
        }
        assertThat(QuoteServiceImpl.CANCELLED.get()).isEqualTo(1);
    }
}
