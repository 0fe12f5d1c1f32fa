package io.xrpc.benchmark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import io.xrpc.server.RpcServer;
import io.xrpc.stream.Streams;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line end to end against real providers on loopback, as a user types it. */
class XrpcCliTest {

    public record Item(String sku, int quantity) {}

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

    public interface Shop {
        Item find(long id);

        int total(List<Item> items);

        void reserve(String sku, int quantity) throws OutOfStock;

        /** {@code count} items of {@code sku}, streamed. */
        Flow.Publisher<Item> watch(String sku, int count);
    }

    static final class ShopImpl implements Shop {
        @Override
        public Item find(long id) {
            return new Item("sku-" + id, (int) id * 2);
        }

        @Override
        public int total(List<Item> items) {
            return items.stream().mapToInt(Item::quantity).sum();
        }

        @Override
        public void reserve(String sku, int quantity) throws OutOfStock {
            throw new OutOfStock(sku, quantity - 1);
        }

        @Override
        public Flow.Publisher<Item> watch(String sku, int count) {
            return Streams.fromStream(() -> IntStream.range(0, count).mapToObj(i -> new Item(sku, i)));
        }
    }

    static RpcServer open;
    static RpcServer guarded;
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() {
        open = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(Shop.class, new ShopImpl())
                .build()
                .start();
        guarded = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(Shop.class, new ShopImpl())
                .authenticator((credentials, service, method, peer) ->
                        "Bearer s3cret".equals(credentials) ? null : "a valid bearer token is required")
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        open.close();
        guarded.close();
    }

    /** What one command printed and returned. */
    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    static Run xrpc(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = XrpcCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static String shop() {
        return Shop.class.getName();
    }

    @Test
    void listAndDescribeShowWhatTheProviderExports() throws Exception {
        Run list = xrpc("list", "--address", open.endpoint().toString());
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.json()).hasSize(1);
        assertThat(list.json().get(0).get("service").asText()).isEqualTo(shop());
        // It accepts any serializer: before, that showed as an empty list.
        assertThat(list.json().get(0).get("serializers").toString()).contains("\"json\"", "\"kryo\"");

        Run schema = xrpc("describe", shop(), "--address", open.endpoint().toString(), "--schema");
        assertThat(schema.exit()).as(schema.err()).isZero();
        JsonNode item = schema.json().get("types").get(Item.class.getName());
        assertThat(item.get("properties").get("quantity").get("type").asText()).isEqualTo("integer");

        // Before: 150 lines for 4 methods. A line per method and a field list per type.
        Run describe = xrpc("describe", shop(), "--address", open.endpoint().toString());
        assertThat(describe.exit()).as(describe.err()).isZero();
        assertThat(describe.json().get("methods").toString())
                .contains("\"" + Item.class.getName() + " find(long")
                .contains("int total(List<" + Item.class.getName() + ">");
        assertThat(describe.json()
                        .get("types")
                        .get(Item.class.getName())
                        .get("quantity")
                        .asText())
                .isEqualTo("int");
        assertThat(describe.out().lines().count())
                .as(describe.out())
                .isLessThan(schema.out().lines().count() / 2);
    }

    @Test
    void aCallTakesJsonArgumentsAndPrintsTheResultAsJson() throws Exception {
        Run find = xrpc(
                "call", shop() + "/find", "[21]", "--address", open.endpoint().toString());
        assertThat(find.exit()).as(find.err() + find.out()).isZero();
        assertThat(find.json()).isEqualTo(JSON.readTree("{\"sku\":\"sku-21\",\"quantity\":42}"));

        Run total = xrpc(
                "call",
                shop() + "/total",
                "[[{\"sku\":\"a\",\"quantity\":2},{\"sku\":\"b\",\"quantity\":5}]]",
                "--address",
                open.endpoint().toString());
        assertThat(total.exit()).as(total.out()).isZero();
        assertThat(total.out().trim()).isEqualTo("7");
    }

    @Test
    void aStreamPrintsOneJsonValuePerLineAsItArrives() throws Exception {
        Run watch = xrpc(
                "call",
                shop() + "/watch",
                "[\"tea\", 3]",
                "--address",
                open.endpoint().toString());
        assertThat(watch.exit()).as(watch.err() + watch.out()).isZero();
        List<String> lines = watch.out().lines().toList();
        assertThat(lines).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(JSON.readTree(lines.get(i)))
                    .isEqualTo(JSON.readTree("{\"sku\":\"tea\",\"quantity\":" + i + "}"));
        }

        Run first = xrpc(
                "call",
                shop() + "/watch",
                "[\"tea\", 1000000]",
                "--limit",
                "2",
                "--address",
                open.endpoint().toString());
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out().lines()).hasSize(2);

        Run schema = xrpc("describe", shop(), "--address", open.endpoint().toString(), "--schema");
        assertThat(schema.json().get("methods").toString()).contains("\"shape\":\"SERVER_STREAM\"");
        Run described = xrpc("describe", shop(), "--address", open.endpoint().toString());
        assertThat(described.json().get("methods").toString())
                .contains("stream of " + Item.class.getName() + " watch(String");
    }

    @Test
    void aDeclaredExceptionPrintsItsClassMessageAndFieldsAndExits11() throws Exception {
        Run r = xrpc(
                "call",
                shop() + "/reserve",
                "[\"tea\", 3]",
                "--address",
                open.endpoint().toString());
        assertThat(r.exit()).isEqualTo(11);
        assertThat(r.json().get("error").asText()).isEqualTo("APPLICATION_ERROR");
        assertThat(r.json().get("exception").asText()).isEqualTo(OutOfStock.class.getName());
        assertThat(r.json().get("message").asText()).isEqualTo("only 2 of tea left");
        assertThat(r.json().get("fields")).isEqualTo(JSON.readTree("{\"sku\":\"tea\",\"left\":2}"));
    }

    @Test
    void aRefusedTokenExits22AndAGoodOneIsLetThrough() throws Exception {
        Run none = xrpc(
                "call", shop() + "/find", "[1]", "--address", guarded.endpoint().toString());
        assertThat(none.exit()).as(none.out()).isEqualTo(22);
        assertThat(none.json().get("error").asText()).isEqualTo("UNAUTHENTICATED");
        assertThat(none.json().get("message").asText()).contains("a valid bearer token is required");

        Run wrong = xrpc(
                "call",
                shop() + "/find",
                "[1]",
                "--types",
                "long",
                "--address",
                guarded.endpoint().toString(),
                "--token",
                "guess",
                "--plaintext-token");
        assertThat(wrong.exit()).isEqualTo(22);

        Run good = xrpc(
                "call",
                shop() + "/find",
                "[1]",
                "--address",
                guarded.endpoint().toString(),
                "--token",
                "s3cret",
                "--plaintext-token");
        assertThat(good.exit()).as(good.out()).isZero();
        assertThat(good.json().get("sku").asText()).isEqualTo("sku-1");
    }

    /**
     * Before: the token was readable from the process list (--token only), and --plaintext-token
     * sent it in plaintext to any address, a registry's providers included.
     */
    @Test
    void aTokenComesFromAFileAndGoesInPlaintextOnlyToALoopbackAddress(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "s3cret\n");
        Run good = xrpc(
                "call",
                shop() + "/find",
                "[1]",
                "--address",
                guarded.endpoint().toString(),
                "--token-file",
                file.toString(),
                "--plaintext-token");
        assertThat(good.exit()).as(good.out() + good.err()).isZero();

        Run viaRegistry = xrpc(
                "call",
                shop() + "/find",
                "[1]",
                "--registry",
                "zookeeper://127.0.0.1:1",
                "--token",
                "s3cret",
                "--plaintext-token");
        assertThat(viaRegistry.exit()).isEqualTo(2);
        assertThat(viaRegistry.json().get("message").asText())
                .contains("--plaintext-token: only with --address on a loopback address");

        // Refused before any client is built: nothing is sent to this documentation-only address.
        Run elsewhere = xrpc(
                "call",
                shop() + "/find",
                "[1]",
                "--address",
                "192.0.2.1:20880",
                "--token",
                "s3cret",
                "--plaintext-token");
        assertThat(elsewhere.exit()).isEqualTo(2);
        assertThat(elsewhere.json().get("message").asText()).contains("192.0.2.1 is not a loopback address");
    }

    @Test
    void aWrongArgumentTypeExits16NamingTheArgumentAndType() throws Exception {
        Run r = xrpc(
                "call",
                shop() + "/find",
                "[\"twenty\"]",
                "--address",
                open.endpoint().toString());
        assertThat(r.exit()).isEqualTo(16);
        assertThat(r.json().get("error").asText()).isEqualTo("SERIALIZATION_ERROR");
        assertThat(r.json().get("message").asText())
                .contains("argument 0 (long)")
                .contains("twenty");
    }

    /** Before: a wrong command printed the whole usage on standard error instead of JSON. */
    @Test
    void mistakesOnTheCommandLineExit2NamingThemInJson() throws Exception {
        Run notJson = xrpc(
                "call", shop() + "/find", "[21", "--address", open.endpoint().toString());
        assertThat(notJson.exit()).isEqualTo(2);
        assertThat(notJson.json().get("error").asText()).isEqualTo("USAGE");
        assertThat(notJson.json().get("message").asText()).contains("ARGS is not JSON");
        assertThat(notJson.json().get("help").asText()).isEqualTo("xrpc call --help");

        Run noMethod = xrpc(
                "call", shop() + "/lose", "[1]", "--address", open.endpoint().toString());
        assertThat(noMethod.exit()).isEqualTo(2);
        assertThat(noMethod.json().get("message").asText())
                .contains("no method lose with 1 parameters")
                .contains("find(long)");
        assertThat(noMethod.err()).as("no usage dump").isEmpty();

        Run nowhere = xrpc("describe", shop());
        assertThat(nowhere.exit()).isEqualTo(2);
        assertThat(nowhere.json().get("message").asText()).contains("--address");

        Run unknownOption = xrpc("list", "--adress", "127.0.0.1:1");
        assertThat(unknownOption.exit()).isEqualTo(2);
        assertThat(unknownOption.json().get("message").asText()).contains("--adress");
    }

    /** Before: SERVICE_NOT_FOUND for a service exported as 1.0 did not say that 1.0 is exported. */
    @Test
    void aNotFoundServiceNamesTheVersionsItIsExportedUnder() throws Exception {
        try (RpcServer versioned = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(
                        Shop.class,
                        new ShopImpl(),
                        ServiceOptions.builder().version("1.0").build())
                .build()
                .start()) {
            Run r = xrpc(
                    "call",
                    shop() + "/find",
                    "[1]",
                    "--address",
                    versioned.endpoint().toString());
            assertThat(r.exit()).as(r.out()).isEqualTo(14);
            assertThat(r.json().get("message").asText()).contains("exported as " + shop() + ":1.0");
            Run right = xrpc(
                    "call",
                    shop() + "/find",
                    "[1]",
                    "--address",
                    versioned.endpoint().toString(),
                    "--service-version",
                    "1.0");
            assertThat(right.exit()).as(right.out()).isZero();
        }
    }

    /**
     * Before: through a registry the same call failed UNAVAILABLE, "no provider of ...Shop", and
     * --wait would have waited for ever for a version nobody registers.
     */
    @Test
    void aRegistryWithAnotherVersionNamesIt() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
                RpcServer versioned = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .registry("zookeeper://" + zk.connectString())
                        .service(
                                Shop.class,
                                new ShopImpl(),
                                ServiceOptions.builder().version("1.0").build())
                        .build()
                        .start()) {
            String registry = "zookeeper://" + zk.connectString();
            Run r = xrpc("call", shop() + "/find", "[1]", "--registry", registry, "--wait", "20s");
            assertThat(r.exit()).as(r.out()).isEqualTo(14);
            assertThat(r.json().get("message").asText())
                    .contains("no provider of " + shop() + " in")
                    .contains("registered: " + shop() + ":1.0");
            Run right = xrpc("call", shop() + "/find", "[1]", "--registry", registry, "--service-version", "1.0");
            assertThat(right.exit()).as(right.out()).isZero();
        }
    }

    /** Before: a command right after starting a provider failed 17, "Connection refused". */
    @Test
    void waitGivesAProviderThatIsStartingTheTimeToListen() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Run refused = xrpc("list", "--address", "127.0.0.1:" + port);
        assertThat(refused.exit()).isEqualTo(17);
        // The provider starts half a second after the command does, as one started with & just before it.
        CompletableFuture<RpcServer> starting = CompletableFuture.supplyAsync(
                () -> RpcServer.builder()
                        .host("127.0.0.1")
                        .port(port)
                        .service(Shop.class, new ShopImpl())
                        .build()
                        .start(),
                CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));
        try {
            Run waited = xrpc("list", "--address", "127.0.0.1:" + port, "--wait", "20s");
            assertThat(waited.exit()).as(waited.out()).isZero();
            assertThat(waited.json().get(0).get("service").asText()).isEqualTo(shop());
        } finally {
            starting.get(20, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void argumentsFromAFileAndAMisspeltServiceExit14(@TempDir Path dir) throws Exception {
        Path args = dir.resolve("items.json");
        Files.writeString(args, "[ [ {\"sku\": \"a b\", \"quantity\": 2},\n  {\"sku\": \"c\", \"quantity\": 3} ] ]\n");
        Run total = xrpc(
                "call",
                shop() + "/total",
                "@" + args,
                "--address",
                open.endpoint().toString());
        assertThat(total.exit()).as(total.err() + total.out()).isZero();
        assertThat(total.out().trim()).isEqualTo("5");

        Run typo = xrpc(
                "call", shop() + "x/find", "[1]", "--address", open.endpoint().toString());
        assertThat(typo.exit()).as(typo.out()).isEqualTo(14);
        assertThat(typo.json().get("message").asText())
                .contains("no service \"" + shop() + "x\"")
                .contains(shop());
    }

    @Test
    void aCallFindsItsProviderInTheRegistry() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
                RpcServer registered = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .registry("zookeeper://" + zk.connectString())
                        .service(Shop.class, new ShopImpl())
                        .build()
                        .start()) {
            String registry = "zookeeper://" + zk.connectString();
            Run describe = xrpc("describe", shop(), "--registry", registry);
            assertThat(describe.exit()).as(describe.err() + describe.out()).isZero();
            Run find = xrpc("call", shop() + "/find", "[4]", "--registry", registry);
            assertThat(find.exit()).as(find.err() + find.out()).isZero();
            assertThat(find.json().get("sku").asText()).isEqualTo("sku-4");
            assertThat(registered.isRunning()).isTrue();
            Run list = xrpc("list", "--registry", registry);
            assertThat(list.exit()).as(list.err() + list.out()).isZero();
            assertThat(list.json().get("interfaces").get(0).asText()).isEqualTo(shop());
            // Before: the registry's password was printed as given.
            Run withPassword = xrpc("list", "--registry", "zookeeper://reader:s3cret@" + zk.connectString());
            assertThat(withPassword.exit())
                    .as(withPassword.err() + withPassword.out())
                    .isZero();
            assertThat(withPassword.out()).doesNotContain("s3cret").contains("reader:****@");
        }
    }

    @Test
    void noProviderThereExits17() throws Exception {
        Run r = xrpc("call", shop() + "/find", "[1]", "--types", "long", "--address", "127.0.0.1:1", "--timeout", "2s");
        assertThat(r.exit()).as(r.out()).isEqualTo(17);
        assertThat(r.json().get("error").asText()).isEqualTo("UNAVAILABLE");
    }
}
