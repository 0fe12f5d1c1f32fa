package io.xrpc.serialize.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.GenericService;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Allocations;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A json number builds no more than its text: {@code 1E+100000} (9 bytes) once expanded into a
 * 41 KB {@code BigInteger}, so 10 KB of arguments made a provider build 41.5 MB and spend seconds.
 * Every numeric type a method may declare is read from numbers of that shape.
 */
class JsonNumbersTest {
    private static final Serializer JSON =
            new JsonSerializerProvider().create(ClassAllowList.withDefaults(), ReadLimits.defaults());

    private static final String THOUSAND_DIGITS = "1" + "0".repeat(999);

    /** Numbers whose text is short and whose value, expanded, is not. */
    private static final List<String> SHAPES = List.of(
            "1E+100000",
            "-1e+99999",
            "1E-999999999",
            "9.9E+2147483647",
            "\"1E+100000\"",
            "\"1E-999999999\"",
            THOUSAND_DIGITS,
            "0." + "0".repeat(998) + "1");

    private static final List<Class<?>> TYPES = List.of(
            byte.class,
            short.class,
            int.class,
            long.class,
            Integer.class,
            Long.class,
            float.class,
            double.class,
            Double.class,
            BigInteger.class,
            BigDecimal.class,
            Number.class,
            Object.class,
            AtomicInteger.class,
            AtomicLong.class,
            Instant.class,
            Duration.class);

    @Test
    void everyNumericTypeReadsEveryShapeWithinItsBytesOrRefusesIt() {
        List<String> accepted = new ArrayList<>();
        for (Class<?> type : TYPES) {
            for (String shape : SHAPES) {
                byte[] payload = ("[" + shape + "]").getBytes(StandardCharsets.US_ASCII);
                Allocations.measure(() -> read(payload, type)); // classes loaded, caches warm
                Allocations.Measured m = Allocations.measure(() -> read(payload, type));
                if (m.thrown() != null) {
                    assertThat(m.thrown())
                            .as(type + " from " + shape)
                            .isInstanceOfAny(SerializationException.class, PayloadLimitException.class);
                } else {
                    accepted.add(type.getSimpleName() + " " + shape);
                }
                assertThat(m.bytes())
                        .as("bytes allocated reading " + type.getSimpleName() + " from " + shape)
                        .isLessThan(64 * 1024);
            }
        }
        // What still reads is bounded by its text: doubles saturate, BigDecimal keeps its scale small.
        assertThat(accepted)
                .contains("double 1E+100000", "BigDecimal " + THOUSAND_DIGITS)
                .doesNotContain("BigInteger 1E+100000", "BigDecimal 1E-999999999", "BigDecimal 1E+100000");
    }

    @Test
    void aWholeNumberTypeRefusesAFractionOrExponentNamingIt() {
        for (Class<?> type : List.of(int.class, long.class, BigInteger.class, Long.class)) {
            assertThatThrownBy(() -> read("[1E+100000]".getBytes(StandardCharsets.US_ASCII), type))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("fraction or an exponent")
                    .hasMessageContaining(type.getName());
        }
        assertThatThrownBy(() -> read("[1E-999999999]".getBytes(StandardCharsets.US_ASCII), BigDecimal.class))
                .isInstanceOf(PayloadLimitException.class)
                .hasMessageContaining("scale of 999999999");
    }

    @Test
    void ordinaryNumbersStillReadAsTheirTypes() throws Exception {
        assertThat(read("[12]".getBytes(StandardCharsets.US_ASCII), BigInteger.class))
                .isEqualTo(BigInteger.valueOf(12));
        assertThat(read("[\"12\"]".getBytes(StandardCharsets.US_ASCII), long.class))
                .isEqualTo(12L);
        assertThat(read("[1.25E+3]".getBytes(StandardCharsets.US_ASCII), BigDecimal.class))
                .isEqualTo(new BigDecimal("1.25E+3"));
        assertThat(read("[1E+1000]".getBytes(StandardCharsets.US_ASCII), BigDecimal.class))
                .isEqualTo(new BigDecimal("1E+1000"));
        assertThat(read("[2.5]".getBytes(StandardCharsets.US_ASCII), double.class))
                .isEqualTo(2.5);
    }

    public interface Numbers {
        int count(List<BigInteger> values);

        String scale(BigDecimal value);
    }

    @Test
    void aProviderRefusesTenKilobytesOfExponentsBeforeExpandingThem() {
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(Numbers.class, new Numbers() {
                    @Override
                    public int count(List<BigInteger> values) {
                        return values.size();
                    }

                    @Override
                    public String scale(BigDecimal value) {
                        return Integer.toString(value.scale());
                    }
                })
                .build()
                .start();
        try (RpcClient client = RpcClient.builder().build()) {
            GenericService numbers = client.generic(
                    Numbers.class.getName(),
                    ReferenceOptions.builder().address(server.endpoint()).build());
            List<BigDecimal> bombs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                bombs.add(new BigDecimal("1E+100000"));
            }
            // Before: the call succeeded after building 41.5 MB of magnitude.
            assertThatThrownBy(() -> numbers.invoke("count", List.of("java.util.List"), List.of(bombs)))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                        assertThat(e.getMessage()).contains("argument 0", "fraction or an exponent");
                    });
            assertThatThrownBy(() -> numbers.invoke(
                            "scale", List.of("java.math.BigDecimal"), List.of(new BigDecimal("1E-999999999"))))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.getMessage()).contains("scale"));
            assertThat(numbers.invoke("count", List.of("java.util.List"), List.of(List.of(1, 2, 3))))
                    .isEqualTo(3);
            assertThat(numbers.invoke("scale", List.of("java.math.BigDecimal"), List.of(new BigDecimal("1.25"))))
                    .isEqualTo("2");
        } finally {
            server.close();
        }
    }

    private static Object read(byte[] payload, Class<?> type) throws IOException {
        return JSON.readArguments(new ByteArrayInputStream(payload), new Class<?>[] {type}, Serializer.NO_DEADLINE)[0];
    }
}
