package io.xrpc.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.server.ErrorDetails;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CapturedErr;
import io.xrpc.types.Inventory.DiscontinuedException;
import io.xrpc.types.Inventory.OutOfStockException;
import io.xrpc.types.Inventory.WarehouseException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** An exception the interface method declares comes back as itself; anything else stays an RpcException. */
class DeclaredExceptionTest {
    static final class Warehouse implements Inventory {
        @Override
        public int reserve(String sku, int count) throws OutOfStockException {
            return switch (sku) {
                case "gone" -> throw new DiscontinuedException(sku, (short) 2019);
                case "broken" ->
                    throw new WarehouseException(
                            "shelf unreachable",
                            new IllegalStateException(
                                    "robot stuck", new SQLException("deadlock", "40001", new IOException("disk"))));
                case "npe" -> throw new NullPointerException("no sku " + sku);
                default -> {
                    if (count > 3) {
                        throw new OutOfStockException(sku, 3);
                    }
                    yield count;
                }
            };
        }

        @Override
        public CompletableFuture<Integer> reserveAsync(String sku, int count) {
            return CompletableFuture.failedFuture(new OutOfStockException(sku, 1));
        }

        @Override
        public int broadlyDeclared(String sku) throws Exception {
            throw new OutOfStockException(sku, 7);
        }

        @Override
        public int count(String sku) {
            if (sku.equals("sql")) {
                throw new IllegalStateException(
                        "lookup failed",
                        new RuntimeException("wrapped", new SQLException("SELECT secret FROM accounts WHERE id=7")));
            }
            throw new IllegalArgumentException("unknown sku " + sku);
        }
    }

    /** A server that trusts its callers with every detail. */
    static RpcServer server;
    /** A server as it is by default: class and message only. */
    static RpcServer guarded;

    static RpcClient client;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .errorDetails(ErrorDetails.FULL)
                .service(Inventory.class, new Warehouse())
                .build()
                .start();
        guarded = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(Inventory.class, new Warehouse())
                .build()
                .start();
        // IllegalStateException is allowed as a class, so that cause comes back as itself; the
        // SQLException under it is allowed nowhere and stands in as an RpcException.
        client = RpcClient.builder()
                .allowClass(DiscontinuedException.class)
                .allowClass(IllegalStateException.class)
                .build();
    }

    @AfterAll
    static void stop() {
        guarded.close();
        client.close();
        server.close();
    }

    static Inventory proxy(String serializer) {
        return client.proxy(
                Inventory.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .serializer(serializer)
                        .timeout(Duration.ofSeconds(10))
                        .build());
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void aDeclaredCheckedExceptionIsCaughtAsItselfWithItsFields(String serializer) throws Exception {
        Inventory inventory = proxy(serializer);
        assertThat(inventory.reserve("apple", 2)).isEqualTo(2);
        try {
            inventory.reserve("apple", 5);
            throw new AssertionError("no exception");
        } catch (OutOfStockException e) {
            assertThat(e.getClass()).isEqualTo(OutOfStockException.class);
            assertThat(e.available()).isEqualTo(3);
            assertThat(e.sku()).isEqualTo("apple");
            assertThat(e.getMessage()).isEqualTo("only 3 of apple left");
            StackTraceElement[] stack = e.getStackTrace();
            assertThat(stack)
                    .as("remote frames first")
                    .anyMatch(f -> f.getClassName().equals(Warehouse.class.getName())
                            && f.getMethodName().equals("reserve"));
            assertThat(stack)
                    .as("then the call, then the caller")
                    .anyMatch(f -> f.getClassName().equals("<xrpc>")
                            && f.getMethodName().contains("reserve"))
                    .anyMatch(f -> f.getMethodName().equals("aDeclaredCheckedExceptionIsCaughtAsItselfWithItsFields"));
            int remote = indexOf(stack, Warehouse.class.getName());
            int local = indexOf(stack, DeclaredExceptionTest.class.getName());
            assertThat(remote).isLessThan(local);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void aSubclassTheCallerAllowsComesBackAsTheSubclass(String serializer) {
        Throwable t = catchThrowable(() -> proxy(serializer).reserve("gone", 1));
        assertThat(t).isInstanceOf(DiscontinuedException.class);
        assertThat(((DiscontinuedException) t).sinceYear()).isEqualTo((short) 2019);
        assertThat(((DiscontinuedException) t).sku()).isEqualTo("gone");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void theCauseChainComesBackAsFarAsAllowed(String serializer) {
        Throwable t = catchThrowable(() -> proxy(serializer).reserve("broken", 1));
        assertThat(t).isInstanceOf(WarehouseException.class).hasMessage("shelf unreachable");
        assertThat(t.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("robot stuck");
        Throwable sql = t.getCause().getCause();
        assertThat(sql).as("not allowed: a stand-in naming it").isInstanceOf(RpcException.class);
        assertThat(((RpcException) sql).remoteClassName()).isEqualTo(SQLException.class.getName());
        assertThat(((RpcException) sql).remoteMessage()).isEqualTo("deadlock");
        // A stand-in keeps its own cause (once, this failed the whole answer: initCause on a set cause).
        assertThat(sql.getCause())
                .isInstanceOfSatisfying(
                        RpcException.class,
                        io -> assertThat(io.remoteClassName()).isEqualTo(IOException.class.getName()));
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        assertThat(w.toString())
                .contains("Caused by: java.lang.IllegalStateException: robot stuck")
                .contains(SQLException.class.getName() + ": deadlock");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void anAsyncMethodsFutureFailsWithTheDeclaredException(String serializer) throws Exception {
        CompletableFuture<Integer> f = proxy(serializer).reserveAsync("pear", 9);
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(OutOfStockException.class)
                .hasMessage("only 1 of pear left");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void undeclaredExceptionsStayRpcExceptions(String serializer) throws Exception {
        Inventory inventory = proxy(serializer);
        assertThatThrownBy(() -> inventory.count("x")).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
            assertThat(e.remoteClassName()).isEqualTo(IllegalArgumentException.class.getName());
            assertThat(e.remoteException()).isNull();
            assertThat(e.remoteStackTrace()).contains(Warehouse.class.getName() + ".count");
        });
        // A declaring method that throws something it does not declare: the same.
        assertThatThrownBy(() -> inventory.reserve("npe", 1))
                .isInstanceOfSatisfying(
                        RpcException.class,
                        e -> assertThat(e.remoteClassName()).isEqualTo(NullPointerException.class.getName()));
    }

    /**
     * Before: the caller received the full printed stack trace of any undeclared exception, so SQL
     * text two causes deep reached it. By default it now gets the class and the message, and a
     * reference to the trace the provider logged.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void byDefaultCallersGetTheClassAndMessageAndTheProviderLogsTheRest(String serializer) {
        Inventory inventory = client.proxy(
                Inventory.class,
                ReferenceOptions.builder()
                        .address(guarded.endpoint())
                        .serializer(serializer)
                        .retries(0)
                        .build());
        try (CapturedErr err = new CapturedErr()) {
            Throwable t = catchThrowable(() -> inventory.count("sql"));
            assertThat(t).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                assertThat(e.remoteClassName()).isEqualTo(IllegalStateException.class.getName());
                assertThat(e.remoteMessage()).isEqualTo("lookup failed");
                assertThat(e.remoteStackTrace()).startsWith("(stack trace not sent: the provider logged it as error ");
            });
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            assertThat(w.toString())
                    .doesNotContain("SELECT")
                    .doesNotContain("wrapped")
                    .doesNotContain(Warehouse.class.getName());
            String reference = ((RpcException) t).remoteStackTrace().replaceAll(".* error ([0-9a-f]+)\\)$", "$1");
            assertThat(err.text()).contains("error " + reference).contains("SELECT secret FROM accounts");
        }
        // A declared exception is the method's contract: itself, its fields, not its causes.
        Throwable declared = catchThrowable(() -> inventory.reserve("broken", 1));
        assertThat(declared)
                .isInstanceOf(WarehouseException.class)
                .hasMessage("shelf unreachable")
                .hasNoCause();
        StringWriter w = new StringWriter();
        declared.printStackTrace(new PrintWriter(w));
        assertThat(w.toString())
                .doesNotContain("robot stuck")
                .doesNotContain("deadlock")
                .contains(Warehouse.class.getName() + ".reserve");
        assertThat(catchThrowable(() -> inventory.reserve("pear", 9)))
                .isInstanceOf(OutOfStockException.class)
                .hasMessage("only 3 of pear left");
    }

    /**
     * A declared exception whose fields do not fit an error answer arrives as an RpcException
     * whose text says why, rather than without a word.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kryo", "jackson"})
    void aDeclaredExceptionTooLargeToCarrySaysSo(String serializer) {
        Inventory inventory = client.proxy(
                Inventory.class,
                ReferenceOptions.builder()
                        .address(guarded.endpoint())
                        .serializer(serializer)
                        .retries(0)
                        .build());
        String sku = "x".repeat(13_000); // the sku field, over 12 KiB; its message still fits the 16 KiB answer
        assertThatThrownBy(() -> inventory.reserve(sku, 5)).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.remoteClassName()).isEqualTo(OutOfStockException.class.getName());
            assertThat(e.remoteStackTrace())
                    .startsWith("(the declared exception was not carried as itself: " + serializer
                            + " cannot write the fields")
                    .contains("bytes an error answer can carry");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void throwsExceptionIsTooBroadToCarryFields(String serializer) {
        // "throws Exception" would send the fields of whatever a library threw to every caller.
        assertThatThrownBy(() -> proxy(serializer).broadlyDeclared("x"))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.remoteClassName()).isEqualTo(OutOfStockException.class.getName());
                    assertThat(e.remoteException()).isNull();
                    assertThat(e.remoteStackTrace()).contains(Warehouse.class.getName() + ".broadlyDeclared");
                });
    }

    static final Serializer KRYO = new KryoSerializerProvider()
            .create(ClassAllowList.withDefaults().allowTypesOf(Inventory.class), ReadLimits.defaults());

    static Throwable rebuild(ExceptionValue carried, Class<?>[] declared, ClassAllowList allowed) {
        return RemoteExceptions.rebuild(
                carried,
                declared,
                allowed::isAllowed,
                DeclaredExceptionTest.class.getClassLoader(),
                KRYO,
                Serializer.NO_DEADLINE);
    }

    @Test
    void whatAPeerSendsIsCappedOnReading() throws Exception {
        Class<?>[] declared = {OutOfStockException.class};
        ExceptionValue honest = RemoteExceptions.describe(new OutOfStockException("sku", 1), declared, true, KRYO);
        String[] frames = new String[400_000]; // 100,000 frames claimed
        Arrays.fill(frames, "x");
        ExceptionValue carried = new ExceptionValue(
                honest.className(), "m".repeat(1_000_000), honest.fieldNames(), honest.fieldValues(), frames, null);
        Throwable t = rebuild(carried, declared, ClassAllowList.withDefaults().allowTypesOf(Inventory.class));
        assertThat(t).isInstanceOf(OutOfStockException.class);
        assertThat(t.getStackTrace()).hasSize(64);
        assertThat(t.getMessage()).hasSize(2048);
    }

    @Test
    void aCarriedExceptionIsRebuiltOnlyWhenAllowedAndDeclared() throws Exception {
        Class<?>[] declared = {OutOfStockException.class};
        ExceptionValue carried =
                RemoteExceptions.describe(new DiscontinuedException("sku", (short) 1), declared, true, KRYO);
        ClassAllowList walked = ClassAllowList.withDefaults().allowTypesOf(Inventory.class);
        assertThat(rebuild(carried, declared, walked))
                .as("a subclass the allow-list does not name")
                .isNull();
        assertThat(rebuild(
                        carried,
                        new Class<?>[] {WarehouseException.class},
                        ClassAllowList.withDefaults().allowClass(DiscontinuedException.class)))
                .as("allowed but not declared by the caller's method")
                .isNull();
        ExceptionValue forged = new ExceptionValue(
                "java.lang.String",
                carried.message(),
                carried.fieldNames(),
                carried.fieldValues(),
                carried.stack(),
                null);
        assertThat(rebuild(forged, new Class<?>[] {Object.class}, walked))
                .as("not a Throwable")
                .isNull();
        forged = new ExceptionValue("java.net.URL", null, null, null, null, null);
        assertThat(rebuild(forged, new Class<?>[] {Object.class}, walked)).isNull();
        assertThat(rebuild(carried, declared, ClassAllowList.withDefaults().allowClass(DiscontinuedException.class)))
                .isInstanceOf(DiscontinuedException.class);
    }

    /**
     * Before, a field that did not arrive in its declared type was skipped without a word (a JSON
     * serializer lost every field so). Now the rebuilt exception names it, and the serializer.
     */
    @Test
    void aFieldThatDoesNotArriveIsNamedNotDropped() throws Exception {
        Class<?>[] declared = {OutOfStockException.class};
        ExceptionValue honest = RemoteExceptions.describe(new OutOfStockException("sku", 4), declared, true, KRYO);
        ByteArrayOutputStream wrong = new ByteArrayOutputStream();
        KRYO.writeArguments(new Object[] {"four", "sku"}, wrong); // "available" is an int
        ExceptionValue skewed = new ExceptionValue(
                honest.className(), honest.message(), honest.fieldNames(), wrong.toByteArray(), honest.stack(), null);
        ClassAllowList allowed = ClassAllowList.withDefaults().allowTypesOf(Inventory.class);
        Throwable t = rebuild(skewed, declared, allowed);
        assertThat(t)
                .isInstanceOfSatisfying(
                        OutOfStockException.class, e -> assertThat(e.sku()).isEqualTo("sku"));
        assertThat(t.getSuppressed())
                .singleElement()
                .asString()
                .contains("kryo did not carry all of remote " + OutOfStockException.class.getName())
                .contains("available (int, came as java.lang.String)");

        ExceptionValue garbled = new ExceptionValue(
                honest.className(), honest.message(), honest.fieldNames(), new byte[] {1, 2, 3}, honest.stack(), null);
        assertThat(rebuild(garbled, declared, allowed).getSuppressed())
                .singleElement()
                .asString()
                .contains("kryo did not carry all of remote")
                .contains("its fields could not be read");
    }

    private static int indexOf(StackTraceElement[] stack, String className) {
        return Arrays.asList(stack).stream()
                .map(StackTraceElement::getClassName)
                .toList()
                .indexOf(className);
    }
}
