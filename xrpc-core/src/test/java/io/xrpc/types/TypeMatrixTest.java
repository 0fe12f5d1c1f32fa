package io.xrpc.types;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.types.Catalog.Blob;
import io.xrpc.types.Catalog.Category;
import io.xrpc.types.Catalog.Circle;
import io.xrpc.types.Catalog.Dog;
import io.xrpc.types.Catalog.Empty;
import io.xrpc.types.Catalog.Enums;
import io.xrpc.types.Catalog.Holder;
import io.xrpc.types.Catalog.Immutables;
import io.xrpc.types.Catalog.Item;
import io.xrpc.types.Catalog.Node;
import io.xrpc.types.Catalog.Numbers;
import io.xrpc.types.Catalog.Op;
import io.xrpc.types.Catalog.Optionals;
import io.xrpc.types.Catalog.Order;
import io.xrpc.types.Catalog.Page;
import io.xrpc.types.Catalog.Pair;
import io.xrpc.types.Catalog.Range;
import io.xrpc.types.Catalog.Square;
import io.xrpc.types.Catalog.Times;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.math.BigInteger;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The types a new user's first service exchanges, through every serializer with and without gzip,
 * as an argument and back as a result over a real server, with nothing but the service interface
 * configured (its types join the allow-list on their own) and no package opened. The rows a
 * serializer cannot carry are listed in {@link #CANNOT} with the reason, and in
 * {@code docs/SERIALIZATION.md}; the test fails if one of them starts working too.
 */
class TypeMatrixTest {
    static final String SHARED = "the same record twice (shared reference)";
    static final String CYCLE = "an object graph with a cycle";
    static final String EMPTY_ENUM_SET = "empty EnumSet<Category>";
    static final String HOLDER = "Object, sealed-interface and abstract fields holding subtypes";
    static final String HOLDER_BY_NAME = "Object field holding a record allowed by name only (xrpc.allowed-classes)";
    static final String SEALED = "sealed interface holding a record";

    /** Rows a serializer cannot carry, and why; {@code docs/SERIALIZATION.md} says the same. */
    static final Map<String, Map<String, String>> CANNOT = Map.of(
            "kryo",
                    Map.of(
                            SHARED,
                            "arrives as two equal copies: XRpc runs kryo without reference tracking,"
                                    + " which would cost every message a lookup per object",
                            CYCLE,
                            "refused before sending, naming the likely cycle: no reference tracking, as above"),
            "hessian", Map.of(),
            "json",
                    Map.of( // generic invocation's: values as plain JSON, read as the declared types
                            SHARED, "arrives as two equal copies: JSON holds a tree of values, not a graph",
                            CYCLE, "refused before sending, naming the likely cycle, as above",
                            HOLDER,
                                    "refused by the provider naming the abstract type: JSON names no class, so json"
                                            + " cannot choose a subtype for an abstract or sealed field",
                            HOLDER_BY_NAME, "the record arrives as a map: an Object field holds JSON's own shapes",
                            SEALED, "refused naming the sealed interface, as above"),
            "fory",
                    Map.of(
                            SHARED, "arrives as two equal copies: XRpc runs fory without reference tracking, as kryo",
                            CYCLE, "refused before sending: no reference tracking, as above"),
            "jackson",
                    Map.of( // the test tree's custom serializer (JacksonSerializerProvider)
                            SHARED, "arrives as two equal copies: Jackson writes a tree, not a graph",
                            CYCLE, "refused before sending: Jackson names the self-reference",
                            EMPTY_ENUM_SET,
                                    "refused before sending: Jackson reads an EnumSet's element type from a"
                                            + " private field of java.util, which JDK 17 does not open"),
            "protostuff",
                    Map.of(
                            SHARED,
                            "arrives as two equal copies: protostuff's runtime schemas keep no references"
                                    + " (its graph mode would cost every message)",
                            CYCLE,
                            "refused before sending, naming the likely cycle, as above"));

    record Row(String name, String method, Object sample, BiPredicate<Object, Object> same) {
        static Row of(String name, String method, Object sample) {
            return new Row(name, method, sample, Objects::deepEquals);
        }
    }

    static Item item(int n) {
        return new Item(
                UUID.nameUUIDFromBytes(("item" + n).getBytes()),
                "item #" + n + " 🙂",
                new BigDecimal("19.99").add(BigDecimal.valueOf(n)),
                Category.values()[n % 3],
                Instant.ofEpochSecond(1_700_000_000L + n, 123_456_789),
                LocalDate.of(2026, 11, 1 + n % 28));
    }

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of("record of UUID, BigDecimal, enum, Instant, LocalDate", "item", item(1)));
        rows.add(Row.of("record with null fields", "item", new Item(null, null, null, null, null, null)));
        rows.add(Row.of("generic record Page<Item>", "page", new Page<>(List.of(item(1), item(2)), 3, 42L)));
        Map<String, Item> byName = new LinkedHashMap<>();
        byName.put("a", item(3));
        rows.add(Row.of(
                "nested records, List, Map, array of records",
                "order",
                new Order(item(1), new ArrayList<>(List.of(item(2))), byName, new Item[] {item(4), null})));
        rows.add(Row.of("record with a compact constructor", "range", new Range(1, 5, "five")));
        rows.add(Row.of("record without components", "empty", new Empty()));
        rows.add(Row.of(
                "record of every java.time type",
                "times",
                new Times(
                        LocalDate.of(2024, 2, 29),
                        LocalTime.of(23, 59, 59, 999_999_999),
                        LocalDateTime.of(2026, 11, 23, 10, 15, 30, 1),
                        Instant.ofEpochSecond(-1, 5),
                        Duration.ofSeconds(-90, 7),
                        Period.of(1, -2, 3),
                        ZonedDateTime.of(2026, 3, 29, 2, 30, 0, 0, ZoneId.of("Europe/Lisbon")),
                        OffsetDateTime.of(2026, 11, 23, 10, 0, 0, 0, ZoneOffset.ofHours(-3)),
                        OffsetTime.of(8, 0, 0, 0, ZoneOffset.ofHoursMinutes(5, 45)),
                        Year.of(-44),
                        YearMonth.of(2026, 2),
                        MonthDay.of(2, 29),
                        ZoneOffset.ofTotalSeconds(-12_345),
                        ZoneId.of("Asia/Kathmandu"),
                        DayOfWeek.SUNDAY,
                        Month.FEBRUARY)));
        rows.add(Row.of(
                "record of BigDecimal, BigInteger, char, short, byte and the rest",
                "numbers",
                new Numbers(
                        new BigDecimal("-0.000123456789012345678901234567890"),
                        new BigInteger("123456789012345678901234567890123456789"),
                        'ß',
                        (short) -300,
                        (byte) -7,
                        1.5f,
                        -2.5e-300,
                        Long.MIN_VALUE,
                        true,
                        'é',
                        (short) 12,
                        (byte) 3)));
        EnumMap<Category, BigDecimal> prices = new EnumMap<>(Category.class);
        prices.put(Category.TOYS, new BigDecimal("9.50"));
        prices.put(Category.TOOLS, new BigDecimal("120"));
        Map<Category, Integer> counts = new TreeMap<>(Map.of(Category.FOOD, 3));
        rows.add(Row.of(
                "record of enum, enum with bodies, EnumMap, EnumSet, Map keyed by enum",
                "enums",
                new Enums(Category.FOOD, Op.TIMES, prices, EnumSet.of(Category.TOYS, Category.FOOD), counts)));
        rows.add(Row.of(
                "record of List.of, Set.of, Map.of",
                "immutables",
                new Immutables(
                        List.of("a", "b", "c"), Set.of(1, 2, 3), Map.of("k", 1L, "l", 2L), List.of(), List.of("one"))));
        rows.add(Row.of("record of Optional fields", "optionals", new Optionals(Optional.of("x"), Optional.empty())));
        // Dog is allowed by name below: an abstract field says nothing about what it may hold.
        // Circle and Square are found on their own, as the permitted subclasses of Shape.
        rows.add(Row.of(
                HOLDER,
                "holder",
                new Holder(item(5), new Square(2.0), List.of(new Circle(1.0), new Square(3.0)), new Dog("rex", 3))));
        rows.add(Row.of(
                HOLDER_BY_NAME, "holder", new Holder(new Catalog.Note("hello", Category.FOOD), null, List.of(), null)));
        byte[] big = new byte[1 << 20];
        new Random(1).nextBytes(big);
        rows.add(Row.of("record holding a 1 MiB byte[]", "blob", new Blob("big", big)));
        Item shared = item(6);
        rows.add(new Row(
                SHARED,
                "pair",
                new Pair(shared, shared),
                (sent, back) -> sent.equals(back) && ((Pair) back).left() == ((Pair) back).right()));
        Node cycle = new Node();
        cycle.name = "loop";
        cycle.next = cycle;
        rows.add(new Row(
                CYCLE, "node", cycle, (sent, back) -> back instanceof Node n && n.name.equals("loop") && n.next == n));
        rows.add(Row.of("UUID", "uuid", UUID.fromString("6f1c1f5e-1b7a-4a7e-9a59-1f2f3a4b5c6d")));
        rows.add(Row.of("enum", "category", Category.TOYS));
        rows.add(Row.of("enum constant with a body", "op", Op.PLUS));
        rows.add(Row.of("EnumMap<Category, BigDecimal>", "enumMap", prices));
        rows.add(Row.of("EnumSet<Category>", "enumSet", EnumSet.of(Category.TOOLS, Category.TOYS)));
        rows.add(Row.of(EMPTY_ENUM_SET, "enumSet", EnumSet.noneOf(Category.class)));
        rows.add(Row.of("Optional<Item>", "optional", Optional.of(item(7))));
        rows.add(Row.of("List.of(records)", "list", List.of(item(1), item(2))));
        rows.add(Row.of("Map.of(String, record)", "map", Map.of("a", item(1), "b", item(2))));
        rows.add(Row.of("Set.of(enums)", "set", Set.of(Category.FOOD, Category.TOOLS)));
        rows.add(Row.of("array of records", "array", new Item[] {item(1), item(2)}));
        rows.add(Row.of(SEALED, "shape", new Circle(0.5)));
        rows.add(Row.of("1 MiB byte[]", "bytes", big));
        rows.add(Row.of("char", "charOf", 'ł'));
        rows.add(Row.of("short", "shortOf", (short) -2));
        rows.add(Row.of("byte", "byteOf", (byte) 127));
        return rows;
    }

    static RpcServer server;
    static RpcClient client;

    @BeforeAll
    static void start() {
        Object echo = Proxy.newProxyInstance(
                CatalogService.class.getClassLoader(),
                new Class<?>[] {CatalogService.class},
                (proxy, method, args) -> args[0]);
        server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .compressThreshold(0)
                .allowClass(Dog.class)
                .service(CatalogService.class, (CatalogService) echo)
                .build()
                .start();
        client = RpcClient.builder().compressThreshold(0).allowClass(Dog.class).build();
        // As the starter passes xrpc.allowed-classes: by name, after building.
        server.allowList().allowClassName(Catalog.Note.class.getName());
        client.allowList().allowClassName(Catalog.Note.class.getName());
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource(Codecs.ALL_AND_CUSTOM)
    void everyRowComesBackEqualOrIsDocumentedAsImpossible(String serializer, String compressor) throws Exception {
        CatalogService service = client.proxy(
                CatalogService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .compressor(compressor)
                        .timeout(Duration.ofSeconds(20))
                        .build());
        Map<String, String> failed = new LinkedHashMap<>();
        StringBuilder table = new StringBuilder();
        for (Row row : rows()) {
            Method m = Arrays.stream(CatalogService.class.getMethods())
                    .filter(x -> x.getName().equals(row.method()))
                    .findFirst()
                    .orElseThrow();
            String outcome;
            try {
                Object back = m.invoke(service, row.sample());
                outcome = row.same().test(row.sample(), back)
                        ? null
                        : "came back as " + back
                                + (back == null ? "" : " (" + back.getClass().getName() + ")");
            } catch (InvocationTargetException e) {
                outcome = String.valueOf(e.getCause());
            }
            if (outcome != null) {
                failed.put(row.name(), outcome);
            }
            table.append(String.format("| %s | %s |%n", row.name(), outcome == null ? "ok" : "no: " + outcome));
        }
        System.out.printf("%s+%s%n%s", serializer, compressor, table);
        CANNOT.get(serializer)
                .forEach((row, why) -> assertThat(failed.get(row)).as(row).isNotNull());
        if (serializer.equals("json")) { // refused for the documented reason, not any failure
            assertThat(failed.get(HOLDER))
                    .as(HOLDER)
                    .contains("Cannot construct instance")
                    .contains("Shape");
            assertThat(failed.get(SEALED))
                    .as(SEALED)
                    .contains("Cannot construct instance")
                    .contains("Shape");
        }
        if (failed.containsKey(CYCLE) && !serializer.equals("jackson")) {
            assertThat(failed.get(CYCLE)).as("what a cycle is told").contains("most likely a cycle");
        }
        assertThat(failed.keySet())
                .as(serializer + "+" + compressor + ": " + failed)
                .containsExactlyInAnyOrderElementsOf(CANNOT.get(serializer).keySet());
    }
}
