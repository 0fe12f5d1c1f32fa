package io.xrpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.xrpc.common.Idempotent;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServerReflection;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.server.RpcServer;
import io.xrpc.stream.Streams;
import io.xrpc.testing.Canary;
import io.xrpc.testing.CapturedErr;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generic invocation end to end over loopback: JSON-shaped values in, the provider's declared
 * types built from them, JSON-shaped values out; declared exceptions with their fields; what a
 * generic call may not construct; and the reflection service a tool builds such calls from.
 */
class GenericInvocationTest {

    public enum Status {
        OPEN,
        SHIPPED
    }

    public record Line(String sku, int quantity) {}

    public record Order(long id, UUID ref, Status status, LocalDate placed, List<Line> lines) {}

    public record Query(String sku, int limit) {}

    /** Declared by {@code reserve}: travels back with its fields. */
    public static class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;
        public final String sku;
        public final int left;

        public OutOfStock(String sku, int left) {
            super("only " + left + " of " + sku + " left");
            this.sku = sku;
            this.left = left;
        }
    }

    /** Non-sealed and marked for type ids: its implementations are not on the allow-list by naming it. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
    public interface Note {}

    /** Implements {@link Note} but no service names it. */
    public static class Stranger implements Note {
        public static final AtomicInteger CREATED = new AtomicInteger();
        public String text;

        public Stranger() {
            CREATED.incrementAndGet();
        }
    }

    /** Implements {@link Note} and is allowed by name on {@link #server}. */
    public static class Known implements Note {
        public String text;
    }

    /** Counts initialisations of {@link Gadget}, which only a payload naming it could cause. */
    public static final AtomicInteger GADGETS_INITIALISED = new AtomicInteger();

    /** Named by no service and never referenced by this test's code: its static initialiser must not run. */
    public static class Gadget {
        static {
            GADGETS_INITIALISED.incrementAndGet();
        }
    }

    public interface Orders {
        @Idempotent
        Order find(long id);

        List<Order> search(Query query, List<Status> statuses);

        void reserve(String sku, int quantity) throws OutOfStock;

        int add(int a, int b);

        String note(Note note);

        String canary(Object any);

        void sleep(long millis) throws InterruptedException;

        /** The lines of {@code count} orders, streamed. */
        Flow.Publisher<Line> lines(String sku, int count);
    }

    static final class OrdersImpl implements Orders {
        @Override
        public Order find(long id) {
            return new Order(
                    id,
                    new UUID(0, id),
                    Status.OPEN,
                    LocalDate.of(2026, 11, 26),
                    List.of(new Line("tea", 2), new Line("cup", 1)));
        }

        @Override
        public List<Order> search(Query query, List<Status> statuses) {
            List<Order> found = new ArrayList<>();
            for (int i = 0; i < query.limit(); i++) {
                Order o = find(i);
                found.add(new Order(o.id(), o.ref(), statuses.get(0), o.placed(), List.of(new Line(query.sku(), i))));
            }
            return found;
        }

        @Override
        public void reserve(String sku, int quantity) throws OutOfStock {
            throw new OutOfStock(sku, quantity - 1);
        }

        @Override
        public int add(int a, int b) {
            return a + b;
        }

        @Override
        public String note(Note note) {
            return String.valueOf(note);
        }

        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }

        @Override
        public Flow.Publisher<Line> lines(String sku, int count) {
            return Streams.fromStream(() -> IntStream.range(0, count).mapToObj(i -> new Line(sku, i)));
        }

        @Override
        public String canary(Object any) {
            return any == null ? "null" : any.getClass().getName();
        }
    }

    static RpcServer server;
    static RpcServer guarded;
    static final List<String> intercepted = new CopyOnWriteArrayList<>();
    static RpcClient client;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .allowClass(Known.class)
                .service(Orders.class, new OrdersImpl())
                .interceptor((inv, next) -> {
                    intercepted.add(inv.serializer() + " " + inv.method().signature());
                    return next.proceed(inv);
                })
                .build()
                .start();
        guarded = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(Orders.class, new OrdersImpl())
                .authenticator((credentials, service, method, peer) ->
                        "Bearer good".equals(credentials) ? null : "a valid bearer token is required")
                .build()
                .start();
        client = RpcClient.builder().build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
        guarded.close();
    }

    private static GenericService orders(RpcServer at) {
        return client.generic(
                Orders.class.getName(),
                ReferenceOptions.builder().address(at.endpoint()).build());
    }

    @Test
    void aStreamComesBackAsJsonShapedValuesOneAMessage() {
        GenericService orders = orders(server);
        try (Stream<Object> lines =
                Streams.toStream(orders.stream("lines", List.of("java.lang.String", "int"), List.of("tea", 3)))) {
            assertThat(lines.toList())
                    .containsExactly(
                            Map.of("sku", "tea", "quantity", 0),
                            Map.of("sku", "tea", "quantity", 1),
                            Map.of("sku", "tea", "quantity", 2));
        }
        // A stream of a method of one answer is refused, not run.
        try (Stream<Object> added = Streams.toStream(orders.stream("add", List.of("int", "int"), List.of(1, 2)))) {
            assertThatThrownBy(added::toList).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.METHOD_NOT_FOUND);
                assertThat(e.getMessage()).contains("answers once", "asked for a stream");
            });
        }
    }

    @Test
    void argumentsAreBuiltAsTheDeclaredTypesAndTheResultComesBackAsJsonShapedValues() {
        GenericService orders = orders(server);
        assertThat(orders.invoke("add", List.of("int", "int"), List.of(2, 40))).isEqualTo(42);
        @SuppressWarnings("unchecked")
        Map<String, Object> order = (Map<String, Object>) orders.invoke("find", List.of("long"), List.of(7));
        assertThat(order)
                .containsEntry("id", 7)
                .containsEntry("status", "OPEN")
                .containsEntry("placed", "2026-11-26")
                .containsEntry("ref", new UUID(0, 7).toString());
        assertThat(order.get("lines"))
                .isEqualTo(List.of(Map.of("sku", "tea", "quantity", 2), Map.of("sku", "cup", "quantity", 1)));

        // A record and a list of enums, built from maps and strings; the provider used them as such.
        Object found = orders.invoke(
                "search",
                List.of(Query.class.getName(), "java.util.List"),
                List.of(Map.of("sku", "mug", "limit", 2), List.of("SHIPPED")));
        assertThat(found).asList().hasSize(2);
        for (Object o : (List<?>) found) {
            Map<?, ?> m = (Map<?, ?>) o;
            assertThat(m.get("status")).isEqualTo("SHIPPED");
            assertThat(m.get("lines")).isEqualTo(List.of(Map.of("sku", "mug", "quantity", m.get("id"))));
        }
        assertThat(intercepted)
                .as("server interceptors see a generic call as any other")
                .contains("json add(int,int)", "json find(long)");
    }

    @Test
    void aDeclaredExceptionComesBackWithItsClassMessageAndFields() throws Exception {
        GenericService orders = orders(server);
        assertThatThrownBy(() -> orders.invoke("reserve", List.of("java.lang.String", "int"), List.of("tea", 3)))
                .isInstanceOfSatisfying(GenericException.class, e -> {
                    assertThat(e.className()).isEqualTo(OutOfStock.class.getName());
                    assertThat(e.remoteMessage()).isEqualTo("only 2 of tea left");
                    assertThat(e.fields()).containsEntry("sku", "tea").containsEntry("left", 2);
                    assertThat(e.getStackTrace()).isNotEmpty();
                });
        // The asynchronous form fails its future with the same.
        assertThat(orders.invokeAsync("reserve", List.of("java.lang.String", "int"), List.of("cup", 1)))
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(GenericException.class)
                .withMessageContaining("only 0 of cup left");
    }

    @Test
    void aValueTheDeclaredTypeCannotHoldFailsNamingTheArgumentAndTheType() {
        GenericService orders = orders(server);
        assertThatThrownBy(() -> orders.invoke("add", List.of("int", "int"), List.of("two", 40)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                    assertThat(e.getMessage()).contains("argument 0 (int)").contains("two");
                });
        assertThatThrownBy(() -> orders.invoke(
                        "search",
                        List.of(Query.class.getName(), "java.util.List"),
                        List.of(Map.of("sku", "mug", "limit", 1, "colour", "red"), List.of("OPEN"))))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                    assertThat(e.getMessage()).contains("colour");
                });
        assertThatThrownBy(() -> orders.invoke(
                        "search",
                        List.of(Query.class.getName(), "java.util.List"),
                        List.of(Map.of("sku", "mug", "limit", 1), List.of("LOST"))))
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.getMessage()).contains("LOST"));
        assertThatThrownBy(() -> orders.invoke("add", List.of("long", "long"), List.of(1, 2)))
                .as("an overload the service does not have")
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.getMessage()).contains("add(long,long)"));
        assertThatThrownBy(() -> orders.invoke("add", List.of("int"), List.of(1, 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 parameter types");
    }

    @Test
    void aGenericCallConstructsNothingATypedCallCouldNot() {
        GenericService orders = orders(server);
        int strangers = Stranger.CREATED.get();
        // json carries no class names: a type id is refused before any class it names is loaded,
        // a generic one (whose type arguments Jackson would load first) included.
        String gadget = GenericInvocationTest.class.getName() + "$Gadget";
        for (String id :
                List.of(Stranger.class.getName(), Known.class.getName(), Known.class.getName() + "<" + gadget + ">")) {
            assertThatThrownBy(() -> orders.invoke(
                            "note", List.of(Note.class.getName()), List.of(Map.of("@class", id, "text", "hi"))))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                        assertThat(e.getMessage()).contains("Note");
                    });
        }
        assertThat(Stranger.CREATED.get()).isEqualTo(strangers);
        assertThat(GADGETS_INITIALISED)
                .as("a class named in a generic type id was initialised")
                .hasValue(0);
        // Where Object is declared, JSON builds JSON's own shapes, never a class the payload names.
        int canaries = Canary.CREATED.get();
        assertThat(orders.invoke(
                        "canary",
                        List.of("java.lang.Object"),
                        List.of(Map.of("@class", Canary.class.getName(), "note", "x"))))
                .isEqualTo("java.util.LinkedHashMap");
        assertThat(Canary.CREATED.get()).isEqualTo(canaries);
    }

    @Test
    void aMessageOfMoreTokensThanTheObjectLimitIsRefusedBeforeItIsBuilt() {
        try (RpcServer tight = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .readLimits(ReadLimits.of(1_000, 32))
                .service(Orders.class, new OrdersImpl())
                .build()
                .start()) {
            GenericService orders = orders(tight);
            List<Object> many = new ArrayList<>();
            for (int i = 0; i < 1_500; i++) {
                many.add("OPEN"); // one token and one object each
            }
            assertThatThrownBy(() -> orders.invoke(
                            "search",
                            List.of(Query.class.getName(), "java.util.List"),
                            List.of(Map.of("sku", "mug", "limit", 1), many)))
                    .isInstanceOfSatisfying(
                            RpcException.class,
                            e -> assertThat(e.getMessage())
                                    .containsIgnoringCase("token count (1001) exceeds the maximum allowed (1000"));
            assertThat(orders.invoke(
                            "search",
                            List.of(Query.class.getName(), "java.util.List"),
                            List.of(Map.of("sku", "mug", "limit", 1), many.subList(0, 100))))
                    .asList()
                    .hasSize(1);
        }
    }

    @Test
    void aCallerNamingEverNewMethodsCostsOnlyItsCallsInFlight() {
        GenericService orders = orders(server);
        for (int i = 0; i < GenericService.MAX_METHODS + 50; i++) {
            int n = i;
            assertThatThrownBy(() -> orders.invoke("nothing" + n, List.of("int"), List.of(n)))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.METHOD_NOT_FOUND));
        }
        assertThat(orders.invoke("add", List.of("int", "int"), List.of(1, 1))).isEqualTo(2);
        assertThat(orders.attemptsHeld())
                .as("methods remembered, plus calls in flight")
                .isLessThanOrEqualTo(GenericService.MAX_METHODS);
    }

    @Test
    void deadlinesAndClientInterceptorsApplyAsToATypedCall() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (RpcClient c = RpcClient.builder()
                .interceptor((inv, next) -> {
                    seen.add(inv.serializer() + " " + inv.method().signature() + " generic="
                            + inv.method().isGeneric());
                    return next.proceed(inv);
                })
                .build()) {
            GenericService slow = c.generic(
                    Orders.class.getName(),
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofMillis(300))
                            .build());
            assertThatThrownBy(() -> slow.invoke("sleep", List.of("long"), List.of(5_000)))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            assertThat(seen).containsExactly("json sleep(long) generic=true");
        }
    }

    @Test
    void theAuthenticatorGuardsGenericCallsAndReflectionAlike() {
        assertThatThrownBy(() -> orders(guarded).invoke("add", List.of("int", "int"), List.of(1, 2)))
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
        GenericService reflection = client.generic(
                ServerReflection.class.getName(),
                ReferenceOptions.builder().address(guarded.endpoint()).build());
        assertThatThrownBy(() -> reflection.invoke("services", List.of(), List.of()))
                .isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
        try (RpcClient withToken = RpcClient.builder()
                .credentialsOverPlaintext(true)
                .credentials(inv -> "Bearer good")
                .build()) {
            GenericService allowed = withToken.generic(
                    ServerReflection.class.getName(),
                    ReferenceOptions.builder().address(guarded.endpoint()).build());
            assertThat(allowed.invoke("services", List.of(), List.of()))
                    .asList()
                    .hasSize(1);
            assertThat(withToken
                            .generic(
                                    Orders.class.getName(),
                                    ReferenceOptions.builder()
                                            .address(guarded.endpoint())
                                            .build())
                            .invoke("add", List.of("int", "int"), List.of(1, 2)))
                    .isEqualTo(3);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void reflectionListsTheServicesAndDescribesMethodsAndTypes() {
        ServerReflection reflection = client.proxy(
                ServerReflection.class,
                ReferenceOptions.builder().address(server.endpoint()).build());
        List<Map<String, Object>> services = reflection.services();
        assertThat(services).singleElement().satisfies(s -> {
            assertThat(s).containsEntry("service", Orders.class.getName()).containsEntry("version", "");
            assertThat((List<String>) s.get("methods"))
                    .contains("find(long)", "add(int,int)", "search(" + Query.class.getName() + ",java.util.List)");
        });
        Map<String, Object> d = reflection.describe(Orders.class.getName());
        List<Map<String, Object>> methods = (List<Map<String, Object>>) d.get("methods");
        Map<String, Object> find = methods.stream()
                .filter(m -> m.get("name").equals("find"))
                .findFirst()
                .orElseThrow();
        assertThat(find)
                .containsEntry("idempotent", true)
                .containsEntry("parameterTypes", List.of("long"))
                .containsEntry("result", Map.of("$ref", "#/types/" + Order.class.getName()));
        Map<String, Object> reserve = methods.stream()
                .filter(m -> m.get("name").equals("reserve"))
                .findFirst()
                .orElseThrow();
        assertThat(reserve)
                .containsEntry("exceptions", List.of(OutOfStock.class.getName()))
                .containsEntry("idempotent", false);
        Map<String, Object> types = (Map<String, Object>) d.get("types");
        Map<String, Object> order = (Map<String, Object>) types.get(Order.class.getName());
        Map<String, Object> props = (Map<String, Object>) order.get("properties");
        assertThat(props.get("status")).isEqualTo(Map.of("type", "string", "enum", List.of("OPEN", "SHIPPED")));
        assertThat(props.get("lines"))
                .isEqualTo(Map.of("type", "array", "items", Map.of("$ref", "#/types/" + Line.class.getName())));
        assertThat(types).containsKey(Line.class.getName());
        assertThatThrownBy(() -> reflection.describe("com.acme.Nothing"))
                .hasMessageContaining("no service \"com.acme.Nothing\"")
                .hasMessageContaining(Orders.class.getName());

        // Through a generic reference, as the command line asks it.
        Object generic = client.generic(
                        ServerReflection.class.getName(),
                        ReferenceOptions.builder().address(server.endpoint()).build())
                .invoke("describe", List.of("java.lang.String"), List.of(Orders.class.getName()));
        assertThat((Map<String, Object>) generic).containsKey("types").containsEntry("service", Orders.class.getName());
    }

    @Test
    void aServiceNameInReflectionIsLoggedQuotedCutAndEscaped() {
        ServerReflection reflection = client.proxy(
                ServerReflection.class,
                ReferenceOptions.builder().address(server.endpoint()).build());
        // Before: the whole argument went into the provider's WARN line, forged lines included.
        String forged = "x\n12:00:00.000 ERROR [main] io.xrpc.Forged - the disk is on fire\n" + "y".repeat(1 << 20);
        String log;
        try (CapturedErr err = new CapturedErr()) {
            assertThatThrownBy(() -> reflection.describe(forged))
                    .isInstanceOf(RpcException.class)
                    .hasMessageContaining("no service \"x\\u000a12:00");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> err.text().contains("describe"));
            log = err.text();
        }
        assertThat(log).doesNotContain("\n12:00:00.000 ERROR").contains("... (" + forged.length() + " chars)");
        assertThat(log.length()).isLessThan(64 * 1024);
    }

    /**
     * Before: every generic() call made a reference the client kept until it closed (with a
     * registry, a subscription never closed): 5,000 calls left 5,000 references.
     */
    @Test
    void genericReferencesAreSharedByServiceAndOptionsAndBounded() {
        try (RpcClient tool = RpcClient.builder().build()) {
            GenericService first = null;
            for (int i = 0; i < 5000; i++) {
                GenericService g = tool.generic(
                        Orders.class.getName(),
                        ReferenceOptions.builder()
                                .address(server.endpoint())
                                .timeout(Duration.ofSeconds(3))
                                .build());
                if (first == null) {
                    first = g;
                }
                assertThat(g).isSameAs(first);
            }
            assertThat(first.invoke("add", List.of("int", "int"), List.of(2, 40)))
                    .isEqualTo(42);
            assertThat(tool.references()).hasSize(1);
            GenericService other = tool.generic(
                    Orders.class.getName(),
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(4))
                            .build());
            assertThat(other).isNotSameAs(first);
            assertThat(tool.references()).hasSize(2);
            for (int i = 2; i < RpcClient.MAX_GENERIC_REFERENCES; i++) {
                tool.generic(
                        "com.acme.S" + i,
                        ReferenceOptions.builder().address(server.endpoint()).build());
            }
            assertThatThrownBy(() -> tool.generic(
                            "com.acme.OneTooMany",
                            ReferenceOptions.builder()
                                    .address(server.endpoint())
                                    .build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds 1024 already");
            assertThat(tool.generic(
                            Orders.class.getName(),
                            ReferenceOptions.builder()
                                    .address(server.endpoint())
                                    .timeout(Duration.ofSeconds(3))
                                    .build()))
                    .as("an existing one is still shared")
                    .isSameAs(first);
        }
    }

    @Test
    void reflectionCanBeTurnedOff() {
        try (RpcServer quiet = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .reflection(false)
                .service(Orders.class, new OrdersImpl())
                .build()
                .start()) {
            GenericService reflection = client.generic(
                    ServerReflection.class.getName(),
                    ReferenceOptions.builder().address(quiet.endpoint()).build());
            assertThatThrownBy(() -> reflection.invoke("services", List.of(), List.of()))
                    .isInstanceOfSatisfying(
                            RpcException.class,
                            e -> assertThat(e.getMessage()).contains(ServerReflection.class.getName()));
            assertThat(quiet.services()).hasSize(1);
        }
    }

    @Test
    void aGenericReferenceTakesOnlyJson() {
        assertThatThrownBy(() -> client.generic(
                        Orders.class.getName(),
                        ReferenceOptions.builder()
                                .address(server.endpoint())
                                .serializer("kryo")
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("json");
    }
}
