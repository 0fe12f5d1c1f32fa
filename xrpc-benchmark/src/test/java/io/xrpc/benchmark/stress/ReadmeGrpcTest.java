package io.xrpc.benchmark.stress;

import static io.xrpc.testing.ExternalTools.NODE_MODULES;
import static io.xrpc.testing.ExternalTools.hasNodePackage;
import static io.xrpc.testing.ExternalTools.runs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.xrpc.benchmark.cli.XrpcCli;
import io.xrpc.benchmark.demo.Orders;
import io.xrpc.benchmark.demo.OrdersImpl;
import io.xrpc.server.RpcServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's gRPC lines, run as they stand against the demo Orders: {@code xrpc proto} writes
 * {@code Orders.proto}, Node's grpc-js loads it and places an order, protoc generates Python's
 * classes from it and grpcio places one. The Node and Python steps skip, saying so, where their
 * tools are not installed ({@code .ci/run} installs them).
 */
@Timeout(120)
class ReadmeGrpcTest {
    static final Path NODE_MODULES = Path.of(System.getenv()
            .getOrDefault("XRPC_NODE_MODULES", System.getProperty("user.home") + "/.cache/xrpc-node/node_modules"));

    @TempDir
    static Path dir;

    static RpcServer provider;
    static List<String> readme;

    @BeforeAll
    static void start() throws Exception {
        readme = Files.readAllLines(XrpcWalkthroughIT.ROOT.resolve("README.md"));
        provider = RpcServer.builder()
                .host("127.0.0.1")
                .service(Orders.class, new OrdersImpl())
                .authenticator(OrdersImpl.authenticator())
                .build()
                .start();
        String export = line("xrpc-benchmark/xrpc proto ");
        String[] words = export.substring(0, export.indexOf('>')).trim().split(" ");
        StringWriter out = new StringWriter();
        int exit = XrpcCli.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "proto", words[2]);
        assertThat(exit).isZero();
        assertThat(export).endsWith("> Orders.proto");
        Files.writeString(dir.resolve("Orders.proto"), out.toString());
    }

    @AfterAll
    static void stop() {
        provider.close();
    }

    static String line(String prefix) {
        return readme.stream()
                .filter(l -> l.startsWith(prefix))
                .findFirst()
                .orElseThrow(() -> new AssertionError("README.md shows no line starting " + prefix));
    }

    static String port(String line) {
        return line.replace("20880", Integer.toString(provider.endpoint().port()));
    }

    static String run(List<String> command, String nodePath) throws Exception {
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        if (nodePath != null) {
            b.environment().put("NODE_PATH", nodePath);
        }
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void theExportedProtoDescribesTheDemoOrders() throws Exception {
        String proto = Files.readString(dir.resolve("Orders.proto"));
        assertThat(proto)
                .contains("package io.xrpc.benchmark.demo;")
                .contains("rpc place (PlaceRequest) returns (Order);")
                .contains("rpc recent (RecentRequest) returns (stream Order);");
    }

    @Test
    void nodePlacesAnOrderThroughTheExportedProto() throws Exception {
        String line = line("node -e \"const g = require('@grpc/grpc-js')");
        assumeTrue(runs("node", "--version"), "node is not installed here: the README's gRPC line was not run");
        assumeTrue(
                hasNodePackage("@grpc/grpc-js"),
                "@grpc/grpc-js is not in " + NODE_MODULES + ": the README's gRPC line was not run");
        String script = port(line).substring("node -e \"".length(), port(line).length() - 1);
        String out = run(List.of("node", "-e", script), NODE_MODULES.toString());
        assertThat(out).contains("\"sku\":\"tea\"").contains("\"quantity\":2");
    }

    @Test
    void pythonPlacesAnOrderThroughClassesProtocGenerated() throws Exception {
        String generate = line("protoc --python_out=. Orders.proto");
        String call = line("python3 -c \"import grpc, Orders_pb2 as pb;");
        assumeTrue(runs("protoc", "--version"), "protoc is not installed here: the README's Python lines were not run");
        assumeTrue(
                runs("/usr/bin/python3", "-c", "import grpc"),
                "/usr/bin/python3 cannot import grpc (python3-grpcio): the README's Python lines were not run");
        run(List.of("bash", "-c", generate), null);
        String code = port(call).substring("python3 -c \"".length(), port(call).length() - 1);
        String out = run(List.of("/usr/bin/python3", "-c", code), null);
        assertThat(out).contains("sku: \"tea\"").contains("quantity: 2");
    }
}
