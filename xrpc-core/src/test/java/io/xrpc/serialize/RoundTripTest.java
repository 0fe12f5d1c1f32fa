package io.xrpc.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.Dtos;
import io.xrpc.testing.TypesService;
import io.xrpc.testing.TypesServiceImpl;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of value through every serializer, with and without gzip, over a real loopback server. */
class RoundTripTest {
    static final TypesServiceImpl impl = new TypesServiceImpl();
    static RpcServer server;
    static RpcClient client;

    @BeforeAll
    static void start() {
        // Threshold 0: with gzip chosen, every body is really compressed, requests and responses.
        server = RpcServer.builder()
                .host("127.0.0.1")
                .compressThreshold(0)
                .service(TypesService.class, impl)
                .build()
                .start();
        client = RpcClient.builder().compressThreshold(0).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static TypesService proxy(String serializer, String compressor) {
        return client.proxy(
                TypesService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .compressor(compressor)
                        .timeout(Duration.ofSeconds(10))
                        .build());
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void primitivesAndBoxes(String serializer, String compressor) {
        TypesService s = proxy(serializer, compressor);
        assertThat(s.addInts(2, -5)).isEqualTo(-3);
        assertThat(s.addLongs(Long.MAX_VALUE - 1, 1L)).isEqualTo(Long.MAX_VALUE);
        assertThat(s.scale(1.5, 2.0f)).isEqualTo(3.0);
        assertThat(s.not(true)).isFalse();
        assertThat(s.shortOf((short) 41)).isEqualTo((short) 42);
        assertThat(s.byteOf((byte) -127)).isEqualTo((byte) -128);
        assertThat(s.charOf('ä')).isEqualTo('Ä');
        assertThat(s.boxedOrNull(21)).isEqualTo(42);
        assertThat(s.boxedOrNull(null)).isNull();
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void stringsNullsAndArrays(String serializer, String compressor) {
        TypesService s = proxy(serializer, compressor);
        String unicode = "héllo 世界 🌍 \u0000 end";
        assertThat(s.echo(unicode)).isEqualTo(unicode);
        assertThat(s.echo("")).isEmpty();
        assertThat(s.echo(null)).isNull();
        assertThat(s.join("a", null, "c")).isEqualTo("a|null|c");
        assertThat(s.join(null, null, null)).isEqualTo("null|null|null");
        assertThat(s.nullString()).isNull();
        assertThat(s.reverse(new int[] {1, 2, 3})).containsExactly(3, 2, 1);
        assertThat(s.upper(new String[] {"a", null, "ü"})).containsExactly("A", null, "Ü");
        byte[] big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        assertThat(s.bytes(big)).isEqualTo(big);
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void collectionsAndObjects(String serializer, String compressor) {
        TypesService s = proxy(serializer, compressor);
        assertThat(s.list(List.of("x", "y"))).containsExactly("x", "y", "end");
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("a", 1);
        m.put("b", 2);
        assertThat(s.map(m)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 2, "b", 3));
        assertThat(s.set(Set.of(5L, 6L))).containsExactlyInAnyOrder(-1L, 5L, 6L);
        Dtos.Person p = Dtos.samplePerson(7);
        assertThat(s.person(p)).isEqualTo(p);
        assertThat(s.people(15)).hasSize(15).element(14).isEqualTo(Dtos.samplePerson(14));
        assertThat(s.flip(Dtos.Level.LOW)).isEqualTo(Dtos.Level.HIGH);
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void numbersAndTime(String serializer, String compressor) {
        TypesService s = proxy(serializer, compressor);
        assertThat(s.add(new BigDecimal("0.1"), new BigDecimal("0.2"))).isEqualTo(new BigDecimal("0.3"));
        assertThat(s.nextDay(LocalDate.of(2024, 2, 28))).isEqualTo(LocalDate.of(2024, 2, 29));
        assertThat(s.plusHour(LocalDateTime.of(2026, 11, 22, 23, 30))).isEqualTo(LocalDateTime.of(2026, 11, 23, 0, 30));
        ZonedDateTime z = ZonedDateTime.of(2026, 3, 29, 1, 30, 0, 0, ZoneId.of("Europe/Lisbon"));
        assertThat(s.zoned(z)).isEqualTo(z);
        assertThat(s.twice(Duration.ofMillis(1500))).isEqualTo(Duration.ofSeconds(3));
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void voidAsyncAndLocalMethods(String serializer, String compressor) throws Exception {
        TypesService s = proxy(serializer, compressor);
        int before = impl.nothingCalls.get();
        s.nothing("x");
        assertThat(impl.nothingCalls.get()).isEqualTo(before + 1);
        assertThat(s.personAsync(3).get(10, TimeUnit.SECONDS)).isEqualTo(Dtos.samplePerson(3));
        assertThat(s.voidAsync().get(10, TimeUnit.SECONDS)).isNull();
        assertThat(s.localGreeting()).isEqualTo("computed locally");
        assertThat(s.toString()).contains(TypesService.class.getName(), serializer, compressor);
        assertThat(s).isEqualTo(s).isNotEqualTo(proxy(serializer, compressor));
        assertThat(s.hashCode()).isEqualTo(System.identityHashCode(s));
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void serviceExceptionsComeBackAsRpcException(String serializer, String compressor) {
        TypesService s = proxy(serializer, compressor);
        assertThatThrownBy(() -> s.fail("boom ✗")).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
            assertThat(e.remoteClassName()).isEqualTo(IllegalStateException.class.getName());
            assertThat(e.remoteMessage()).isEqualTo("boom ✗");
            // Logged, or (past ten a second, as here with every codec at once) said not to be.
            assertThat(e.remoteStackTrace()).startsWith("(stack trace not sent").containsPattern("error [0-9a-f]{16}");
            assertThat(e.getMessage())
                    .contains(
                            "fail(java.lang.String)", server.endpoint().toString(), "IllegalStateException", "boom ✗");
            // The stack shows the caller, not the event loop that received the answer.
            assertThat(e.getStackTrace()).anyMatch(f -> f.getClassName().equals(RoundTripTest.class.getName()));
        });
        assertThatThrownBy(() -> s.failAsync("async boom").join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.remoteClassName()).isEqualTo(UnsupportedOperationException.class.getName());
                    assertThat(e.remoteMessage()).isEqualTo("async boom");
                });
    }
}
