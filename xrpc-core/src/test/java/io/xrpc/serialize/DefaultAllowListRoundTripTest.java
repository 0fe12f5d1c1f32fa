package io.xrpc.serialize;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.UserJvm;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.Stack;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every class on the default allow-list goes through every serializer and compressor, as an
 * argument and as a result over a real server, and must come back equal. A type that cannot
 * leaves the list (issue: Protostuff turned a Timestamp into 1970, a BitSet into {}, a Currency
 * into one without fraction digits).
 */
class DefaultAllowListRoundTripTest {
    /** Takes and returns anything: only the default allow-list (and {@link Tint}) may be read. */
    public interface Echo {
        Object echo(Object value);

        // Hessian 2 has no byte, short, float or char: in an Object slot they arrive as Integer,
        // Double and String. With their declared type they come back as they were.
        Byte echoByte(Byte value);

        Short echoShort(Short value);

        Float echoFloat(Float value);

        Character echoChar(Character value);
    }

    static final class EchoImpl implements Echo {
        @Override
        public Object echo(Object value) {
            return value;
        }

        @Override
        public Byte echoByte(Byte value) {
            return value;
        }

        @Override
        public Short echoShort(Short value) {
            return value;
        }

        @Override
        public Float echoFloat(Float value) {
            return value;
        }

        @Override
        public Character echoChar(Character value) {
            return value;
        }
    }

    public enum Tint {
        RED,
        GREEN,
        BLUE
    }

    static RpcServer server;
    static RpcClient client;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .compressThreshold(0)
                .allowClass(Tint.class)
                .service(Echo.class, new EchoImpl())
                .build()
                .start();
        client = RpcClient.builder().compressThreshold(0).allowClass(Tint.class).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @Test
    void theseTestsRunAsUsersDoWithNoPackageOpened() {
        // What passes here must pass for a user, who starts the JVM without --add-opens.
        UserJvm.assertNoPackageOpened(DefaultAllowListRoundTripTest.class);
    }

    /** A sample of each default class, and how to compare it when its equals is identity or order-blind. */
    record Sample(Object value, Function<Object, Object> view) {
        static Sample of(Object value) {
            return new Sample(value, v -> v);
        }

        static Sample asList(Object value) {
            return new Sample(value, v -> new ArrayList<>((Collection<?>) v));
        }
    }

    static Map<String, Sample> samples() {
        Map<String, Sample> s = new LinkedHashMap<>();
        s.put("java.lang.String", Sample.of("grüße 🙂"));
        s.put("java.lang.Boolean", Sample.of(Boolean.TRUE));
        s.put("java.lang.Byte", Sample.of((byte) -7));
        s.put("java.lang.Character", Sample.of('ß'));
        s.put("java.lang.Short", Sample.of((short) -300));
        s.put("java.lang.Integer", Sample.of(-70_000));
        s.put("java.lang.Long", Sample.of(Long.MIN_VALUE + 1));
        s.put("java.lang.Float", Sample.of(1.25f));
        s.put("java.lang.Double", Sample.of(-2.5e-300));
        s.put("java.math.BigDecimal", Sample.of(new BigDecimal("-12345678901234567890.123450")));
        s.put("java.math.BigInteger", Sample.of(new BigInteger("-123456789012345678901234567890")));
        s.put("java.util.ArrayList", Sample.of(new ArrayList<>(List.of(1, "two", 3.0))));
        s.put("java.util.LinkedList", Sample.of(new LinkedList<>(List.of("a", "b"))));
        s.put("java.util.HashMap", Sample.of(new HashMap<>(Map.of("k", 1, "l", 2))));
        s.put("java.util.LinkedHashMap", Sample.of(new LinkedHashMap<>(Map.of("k", List.of(1)))));
        s.put("java.util.TreeMap", Sample.of(new TreeMap<>(Map.of("b", 2, "a", 1))));
        s.put("java.util.HashSet", Sample.of(new HashSet<>(Set.of(1L, 2L))));
        s.put("java.util.LinkedHashSet", Sample.of(new LinkedHashSet<>(List.of("z", "y"))));
        s.put("java.util.TreeSet", Sample.of(new TreeSet<>(Set.of(3, 1, 2))));
        s.put("java.util.ArrayDeque", Sample.asList(new ArrayDeque<>(List.of(1, 2, 3))));
        EnumMap<Tint, String> em = new EnumMap<>(Tint.class);
        em.put(Tint.GREEN, "g");
        em.put(Tint.RED, "r");
        s.put("java.util.EnumMap", Sample.of(em));
        s.put("java.util.Date", Sample.of(new Date(1_700_000_000_123L)));
        s.put("java.util.UUID", Sample.of(UUID.fromString("6f1c1f5e-1b7a-4a7e-9a59-1f2f3a4b5c6d")));
        s.put("java.util.Locale", Sample.of(Locale.CANADA_FRENCH));
        s.put("java.util.Currency", Sample.of(Currency.getInstance("EUR")));
        BitSet bits = new BitSet();
        bits.set(3);
        bits.set(70);
        s.put("java.util.BitSet", Sample.of(bits));
        s.put("java.util.Optional", Sample.of(Optional.of("present")));
        s.put("java.util.Arrays$ArrayList", Sample.of(Arrays.asList("x", "y")));
        s.put("java.util.ImmutableCollections$List12", Sample.of(List.of("one")));
        s.put("java.util.ImmutableCollections$ListN", Sample.of(List.of(1, 2, 3)));
        s.put("java.util.ImmutableCollections$Set12", Sample.of(Set.of("one")));
        s.put("java.util.ImmutableCollections$SetN", Sample.of(Set.of(1, 2, 3)));
        s.put("java.util.ImmutableCollections$Map1", Sample.of(Map.of("k", "v")));
        s.put("java.util.ImmutableCollections$MapN", Sample.of(Map.of("a", 1, "b", 2)));
        s.put("java.util.Collections$EmptyList", Sample.of(Collections.emptyList()));
        s.put("java.util.Collections$EmptyMap", Sample.of(Collections.emptyMap()));
        s.put("java.util.Collections$EmptySet", Sample.of(Collections.emptySet()));
        s.put("java.util.Collections$SingletonList", Sample.of(Collections.singletonList("s")));
        s.put("java.util.Collections$SingletonMap", Sample.of(Collections.singletonMap("k", "v")));
        s.put("java.util.Collections$SingletonSet", Sample.of(Collections.singleton("s")));
        s.put("java.util.Vector", Sample.of(new Vector<>(List.of(1, 2))));
        Stack<String> stack = new Stack<>();
        stack.push("bottom");
        stack.push("top");
        s.put("java.util.Stack", Sample.of(stack));
        s.put("java.util.Hashtable", Sample.of(new Hashtable<>(Map.of("k", "v"))));
        s.put("java.util.EnumSet", Sample.of(EnumSet.of(Tint.RED, Tint.BLUE)));
        Properties p = new Properties();
        p.setProperty("key", "value");
        s.put("java.util.Properties", Sample.of(p));
        s.put("java.util.concurrent.ConcurrentLinkedQueue", Sample.asList(new ConcurrentLinkedQueue<>(List.of(1, 2))));
        s.put("java.util.concurrent.ConcurrentLinkedDeque", Sample.asList(new ConcurrentLinkedDeque<>(List.of(1, 2))));
        s.put("java.util.concurrent.LinkedBlockingQueue", Sample.asList(new LinkedBlockingQueue<>(List.of(1, 2))));
        s.put("java.util.concurrent.LinkedBlockingDeque", Sample.asList(new LinkedBlockingDeque<>(List.of(1, 2))));
        s.put("java.util.concurrent.ConcurrentHashMap", Sample.of(new ConcurrentHashMap<>(Map.of("k", 1))));
        s.put(
                "java.util.concurrent.ConcurrentSkipListMap",
                Sample.of(new ConcurrentSkipListMap<>(Map.of("b", 2, "a", 1))));
        s.put("java.util.concurrent.ConcurrentSkipListSet", Sample.of(new ConcurrentSkipListSet<>(Set.of(2, 1))));
        s.put(
                "java.util.concurrent.atomic.AtomicInteger",
                new Sample(new AtomicInteger(7), v -> ((AtomicInteger) v).get()));
        s.put("java.util.concurrent.atomic.AtomicLong", new Sample(new AtomicLong(7), v -> ((AtomicLong) v).get()));
        s.put(
                "java.util.concurrent.atomic.AtomicBoolean",
                new Sample(new AtomicBoolean(true), v -> ((AtomicBoolean) v).get()));
        s.put("java.sql.Date", Sample.of(new java.sql.Date(1_700_000_000_000L)));
        s.put("java.sql.Time", Sample.of(new Time(45_296_000L)));
        Timestamp ts = new Timestamp(1_700_000_000_123L);
        ts.setNanos(123_456_789);
        s.put("java.sql.Timestamp", Sample.of(ts));
        return s;
    }

    /** The java.time classes the default package prefix covers, one sample each. */
    static List<Object> timeSamples() {
        return List.of(
                LocalDate.of(2023, 11, 14),
                LocalTime.of(22, 13, 20, 123_000_000),
                LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_789),
                Instant.ofEpochSecond(1_700_000_000L, 123),
                Duration.ofMillis(-1500),
                Period.of(1, 2, 3),
                ZonedDateTime.of(2023, 11, 14, 22, 13, 20, 0, ZoneId.of("Europe/Berlin")),
                OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 0, ZoneOffset.ofHours(-5)),
                OffsetTime.of(22, 13, 20, 0, ZoneOffset.ofHoursMinutes(5, 30)),
                Year.of(2024),
                YearMonth.of(2024, 2),
                MonthDay.of(2, 29),
                ZoneOffset.ofHours(2),
                ZoneId.of("America/New_York"),
                DayOfWeek.FRIDAY,
                Month.DECEMBER);
    }

    @Test
    void everyDefaultClassHasASample() {
        List<String> missing = new ArrayList<>(ClassAllowList.defaultClassNames());
        missing.removeAll(samples().keySet());
        // Names of no value of their own: primitives, Object, Number and Void.
        missing.removeAll(List.of(
                "boolean",
                "byte",
                "char",
                "short",
                "int",
                "long",
                "float",
                "double",
                "void",
                "java.lang.Object",
                "java.lang.Number",
                "java.lang.Void",
                // The two classes an EnumSet is, covered by its sample.
                "java.util.RegularEnumSet",
                "java.util.JumboEnumSet"));
        assertThat(missing).as("default classes without a round-trip sample").isEmpty();
        assertThat(ClassAllowList.defaultPackages()).containsExactly("java.time.");
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL)
    void everyDefaultClassRoundTripsEqual(String serializer, String compressor) {
        Echo echo = client.proxy(
                Echo.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .compressor(compressor)
                        .timeout(Duration.ofSeconds(10))
                        .build());
        List<String> failures = new ArrayList<>();
        Set<String> narrow = Set.of("java.lang.Byte", "java.lang.Short", "java.lang.Float", "java.lang.Character");
        samples().forEach((name, sample) -> {
            assertThat(sample.value().getClass().getName())
                    .as("sample of " + name)
                    .isEqualTo(
                            name.equals("java.util.EnumSet")
                                    ? sample.value().getClass().getName()
                                    : name);
            if (!(serializer.equals("hessian") && narrow.contains(name))) {
                check(echo::echo, name, sample.value(), sample.view(), failures);
            }
        });
        check(v -> echo.echoByte((Byte) v), "java.lang.Byte (declared)", (byte) -7, v -> v, failures);
        check(v -> echo.echoShort((Short) v), "java.lang.Short (declared)", (short) -300, v -> v, failures);
        check(v -> echo.echoFloat((Float) v), "java.lang.Float (declared)", 1.25f, v -> v, failures);
        check(v -> echo.echoChar((Character) v), "java.lang.Character (declared)", 'ß', v -> v, failures);
        for (Object t : timeSamples()) {
            check(echo::echo, t.getClass().getName(), t, v -> v, failures);
        }
        assertThat(failures)
                .as(serializer + "+" + compressor + ": types that did not come back equal")
                .isEmpty();
    }

    private static void check(
            Function<Object, Object> echo,
            String name,
            Object value,
            Function<Object, Object> view,
            List<String> failures) {
        try {
            Object back = echo.apply(value);
            if (!Objects.equals(view.apply(value), back == null ? null : view.apply(back))) {
                failures.add(name + ": sent " + value + ", got " + back
                        + (back == null ? "" : " (" + back.getClass().getName() + ")"));
            }
        } catch (RuntimeException e) {
            failures.add(name + ": " + e);
        }
    }
}
