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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The plain-Java stream helpers, alone and across a real connection. */
@Timeout(60)
class StreamsTest {
    /** The README's example service. */
    public interface Prices {
        Flow.Publisher<Long> ticks(String symbol, int count);

        Flow.Publisher<String> echo(Flow.Publisher<String> lines);

        CompletableFuture<Long> count(Flow.Publisher<String> lines);
    }

    static final class PricesImpl implements Prices {
        final AtomicLong read = new AtomicLong();
        final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public Flow.Publisher<Long> ticks(String symbol, int count) {
            return Streams.fromStream(() -> LongStream.range(0, count)
                    .peek(i -> read.incrementAndGet())
                    .boxed()
                    .onClose(() -> closed.set(true)));
        }

        @Override
        public Flow.Publisher<String> echo(Flow.Publisher<String> lines) {
            return Streams.map(lines, s -> s.toUpperCase(Locale.ROOT));
        }

        @Override
        public CompletableFuture<Long> count(Flow.Publisher<String> lines) {
            AtomicLong n = new AtomicLong();
            return Streams.forEach(lines, s -> n.incrementAndGet()).thenApply(v -> n.get());
        }
    }

    @Test
    void fromIterableProducesOnlyWhatIsRequested() {
        AtomicLong pulled = new AtomicLong();
        Iterable<Integer> items = () -> Stream.iterate(0, i -> i + 1)
                .peek(i -> pulled.incrementAndGet())
                .iterator();
        Flows.Recorder<Integer> r = new Flows.Recorder<>(5);
        Streams.fromIterable(items).subscribe(r);
        assertThat(r.items).containsExactly(0, 1, 2, 3, 4);
        assertThat(pulled.get()).isEqualTo(5);
        r.cancel();
    }

    @Test
    void fromStreamClosesItsStreamAtTheEndAndOnCancel() {
        AtomicBoolean closedAtEnd = new AtomicBoolean();
        Flows.Recorder<Integer> all = new Flows.Recorder<>(Long.MAX_VALUE);
        Streams.fromStream(() -> Stream.of(1, 2, 3).onClose(() -> closedAtEnd.set(true)))
                .subscribe(all);
        assertThat(all.items).containsExactly(1, 2, 3);
        assertThat(all.terminals.get()).isEqualTo(1);
        assertThat(closedAtEnd).isTrue();

        AtomicBoolean closedOnCancel = new AtomicBoolean();
        Flows.Recorder<Integer> some = new Flows.Recorder<>(1);
        Streams.fromStream(() -> Stream.iterate(0, i -> i + 1).onClose(() -> closedOnCancel.set(true)))
                .subscribe(some);
        some.cancel();
        assertThat(closedOnCancel).isTrue();
        assertThat(some.terminals.get()).isZero();
    }

    @Test
    void aFailingIteratorEndsTheStreamWithItsFailure() {
        Flows.Recorder<Integer> r = new Flows.Recorder<>(Long.MAX_VALUE);
        Streams.fromStream(() -> Stream.of(1, 2, 0).map(i -> 10 / i)).subscribe(r);
        assertThat(r.items).containsExactly(10, 5);
        assertThat(r.error.get()).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void aServerStreamReadAsABlockingStreamAndClosedEarlyCancelsTheRestOnTheProvider() throws Exception {
        PricesImpl impl = new PricesImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(Prices.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Prices prices = client.proxy(
                    Prices.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());

            try (Stream<Long> ticks = Streams.toStream(prices.ticks("ACME", 1000))) {
                assertThat(ticks.mapToLong(Long::longValue).sum()).isEqualTo(999L * 1000 / 2);
            }
            assertThat(impl.closed).isTrue();

            impl.closed.set(false);
            impl.read.set(0);
            try (Stream<Long> ticks = Streams.toStream(prices.ticks("ACME", 1_000_000))) {
                assertThat(ticks.limit(10).collect(Collectors.toList()))
                        .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
            }
            await().atMost(Duration.ofSeconds(10)).untilTrue(impl.closed);
            assertThat(impl.read.get())
                    .isLessThanOrEqualTo(2L * ProtocolConstants.INITIAL_STREAM_MESSAGES); // not a million

            try (Stream<String> replies = Streams.toStream(prices.echo(Streams.fromIterable(List.of("a", "b", "c"))))) {
                assertThat(replies.collect(Collectors.joining())).isEqualTo("ABC");
            }
            assertThat(prices.count(Streams.fromIterable(List.of("x", "y"))).get(10, TimeUnit.SECONDS))
                    .isEqualTo(2L);
        }
    }

    @Test
    void aBlockingStreamThrowsTheStreamsFailureAfterItsItems() {
        Flow.Publisher<Integer> failing =
                Flows.failing(3, i -> (int) i, new RpcException(RpcStatus.UNAVAILABLE, "provider went away"));
        try (Stream<Integer> s = Streams.toStream(failing)) {
            List<Integer> seen = new ArrayList<>();
            assertThatThrownBy(() -> s.forEach(seen::add))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE));
            assertThat(seen).containsExactly(0, 1, 2);
        }
    }
}
