package io.xrpc.grpc;

import static io.xrpc.testing.ExternalTools.NODE_MODULES;
import static io.xrpc.testing.ExternalTools.hasNodePackage;
import static io.xrpc.testing.ExternalTools.runs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.server.RpcServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Node's {@code @grpc/grpc-js} with {@code @grpc/proto-loader}, and Python's {@code grpcio} with
 * classes {@code protoc} generated, call a provider through nothing but the {@code .proto} XRpc
 * exported from the Java interface: a unary call, a declared exception as a status with details,
 * a deadline, a token, a server stream, a client stream and a bidirectional one. Each is skipped, saying what is missing, where its tools
 * are not installed ({@code .ci/run} installs them on Debian).
 */
@Timeout(120)
class GrpcOtherLanguagesTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Where {@code .ci/run} installs the Node packages; {@code XRPC_NODE_MODULES} names another. */
    static final Path NODE_MODULES = Path.of(System.getenv()
            .getOrDefault("XRPC_NODE_MODULES", System.getProperty("user.home") + "/.cache/xrpc-node/node_modules"));

    static RpcServer server;

    @BeforeAll
    static void start() {
        server = CatalogImpl.guarded().build().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Map<String, JsonNode> run(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
        b.environment().putAll(env);
        Process p = b.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        Map<String, JsonNode> steps = new HashMap<>();
        for (String line : output.lines().toList()) {
            JsonNode n = JSON.readTree(line);
            steps.put(n.get("step").asString(), n);
        }
        return steps;
    }

    static Path script(String name) throws Exception {
        return Path.of(GrpcOtherLanguagesTest.class.getResource("/grpc/" + name).toURI());
    }

    static String address() {
        return "127.0.0.1:" + server.endpoint().port();
    }

    @Test
    void nodeCallsThroughTheExportedProto(@TempDir Path dir) throws Exception {
        assumeTrue(runs("node", "--version"), "node is not installed here: the Node gRPC client is skipped");
        assumeTrue(
                hasNodePackage("@grpc/grpc-js") && hasNodePackage("@grpc/proto-loader"),
                "@grpc/grpc-js and @grpc/proto-loader are not in " + NODE_MODULES
                        + " (.ci/run installs them: npm install --prefix ~/.cache/xrpc-node @grpc/grpc-js"
                        + " @grpc/proto-loader): the Node gRPC client is skipped");
        ProtoContract contract = ProtoContract.of(Catalog.class);
        Path proto = Files.writeString(dir.resolve("Catalog.proto"), contract.proto());
        Map<String, JsonNode> steps = run(
                List.of(
                        "node",
                        script("node-client.js").toString(),
                        proto.toString(),
                        address(),
                        contract.fullServiceName()),
                Map.of("NODE_PATH", NODE_MODULES.toString()));
        JsonNode item = steps.get("get").get("item");
        assertThat(item.get("id").asString()).isEqualTo("4");
        assertThat(item.get("sku").asString()).isEqualTo("sku-4");
        assertThat(item.get("kind").asString()).isEqualTo("TEA");
        assertThat(item.get("stock").get("berlin").asInt()).isEqualTo(3);
        assertThat(item.get("note").asString()).isEqualTo("fragile");
        JsonNode reserve = steps.get("reserve");
        assertThat(reserve.get("code").asInt()).isEqualTo(2); // UNKNOWN: an application's exception
        assertThat(reserve.get("details").asString()).contains("saffron has only 10 left");
        assertThat(reserve.get("exception").asString()).isEqualTo(Catalog.OutOfStock.class.getName());
        assertThat(reserve.get("statusDetails").asInt()).isPositive();
        assertThat(steps.get("slow").get("code").asInt()).isEqualTo(4); // DEADLINE_EXCEEDED
        assertThat(steps.get("secret").get("refused").asInt()).isEqualTo(16); // UNAUTHENTICATED
        assertThat(steps.get("secret").get("value").asString()).isEqualTo("the secret");
        assertThat(steps.get("watch").get("ids").toString()).isEqualTo("[\"1\",\"2\",\"3\"]");
        assertThat(steps.get("count").get("value").asInt()).isEqualTo(5); // a client stream
        assertThat(steps.get("echo").get("words").toString()).isEqualTo("[\"TEA\",\"COFFEE\"]"); // bidirectional
    }

    @Test
    void pythonCallsThroughClassesProtocGeneratedFromTheExportedProto(@TempDir Path dir) throws Exception {
        assumeTrue(
                runs("protoc", "--version"),
                "protoc is not installed here (Debian: protobuf-compiler): the" + " Python gRPC client is skipped");
        assumeTrue(
                runs("/usr/bin/python3", "-c", "import grpc, google.protobuf"),
                "/usr/bin/python3 cannot import grpc (Debian: python3-grpcio, python3-protobuf): the Python gRPC"
                        + " client is skipped");
        ProtoContract contract = ProtoContract.of(Catalog.class);
        Files.writeString(dir.resolve("Catalog.proto"), contract.proto());
        Process protoc = new ProcessBuilder(
                        "protoc", "-I" + dir, "-I/usr/include", "--python_out=" + dir, "Catalog.proto")
                .redirectErrorStream(true)
                .start();
        String said = new String(protoc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(protoc.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(protoc.exitValue())
                .as("protoc accepts the exported .proto: " + said)
                .isZero();
        Map<String, JsonNode> steps = run(
                List.of(
                        "/usr/bin/python3",
                        script("python_client.py").toString(),
                        dir.toString(),
                        "Catalog_pb2",
                        address(),
                        contract.fullServiceName()),
                Map.of());
        JsonNode get = steps.get("get");
        assertThat(get.get("id").asLong()).isEqualTo(4);
        assertThat(get.get("kind").asString()).isEqualTo("TEA");
        assertThat(get.get("tags").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThat(get.get("stock").get("berlin").asInt()).isEqualTo(3);
        assertThat(get.get("added").asLong()).isEqualTo(CatalogImpl.ADDED.getEpochSecond());
        assertThat(get.get("price").asString()).isEqualTo("12.50");
        assertThat(get.get("hasRank").asBoolean()).isTrue();
        JsonNode reserve = steps.get("reserve");
        assertThat(reserve.get("code").asString()).isEqualTo("UNKNOWN");
        assertThat(reserve.get("details").asString()).contains("saffron has only 10 left");
        assertThat(reserve.get("exception").asString()).isEqualTo(Catalog.OutOfStock.class.getName());
        assertThat(reserve.get("statusDetails").asInt()).isPositive();
        assertThat(steps.get("slow").get("code").asString()).isEqualTo("DEADLINE_EXCEEDED");
        assertThat(steps.get("secret").get("refused").asString()).isEqualTo("UNAUTHENTICATED");
        assertThat(steps.get("secret").get("value").asString()).isEqualTo("the secret");
        assertThat(steps.get("watch").get("ids").toString()).isEqualTo("[1,2,3]");
        assertThat(steps.get("count").get("value").asInt()).isEqualTo(5); // a client stream
        assertThat(steps.get("echo").get("words").toString()).isEqualTo("[\"TEA\",\"COFFEE\"]"); // bidirectional
    }
}
