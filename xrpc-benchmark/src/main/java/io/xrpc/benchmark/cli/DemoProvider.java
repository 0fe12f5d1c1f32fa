package io.xrpc.benchmark.cli;

import io.xrpc.benchmark.demo.Orders;
import io.xrpc.benchmark.demo.OrdersImpl;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.server.RpcServer;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code xrpc demo-provider}: the demo UserService and Orders until killed, to try the other commands on. */
@Command(
        name = "demo-provider",
        mixinStandardHelpOptions = true,
        description = "Serves the demo UserService (the stress tool's model) and Orders (a declared exception, a server"
                + " stream, a method that needs a token) until stopped, to try the other commands on.")
final class DemoProvider implements Callable<Integer> {
    @Option(names = "--port", description = "The port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port = 20880;

    @Option(names = "--host", description = "The address to listen on (default: ${DEFAULT-VALUE}).")
    String host = "127.0.0.1";

    @Option(names = "--registry", description = "Also register in this registry, such as zookeeper://127.0.0.1:2181.")
    String registry;

    @Option(
            names = "--http",
            negatable = true,
            description =
                    "Also answer JSON over HTTP on the port (default: ${DEFAULT-VALUE}; --no-http for XRpc alone).")
    boolean http = true;

    @Option(names = "--console", description = "Serve the console page at /xrpc/console.")
    boolean console;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RpcServer.Builder b = RpcServer.builder()
                .host(host)
                .port(port)
                .http(http)
                .httpConsole(console)
                .service(UserService.class, new UserServiceImpl())
                .service(Orders.class, new OrdersImpl())
                .authenticator(OrdersImpl.authenticator());
        if (registry != null) {
            b.registry(registry);
        }
        try (RpcServer server = b.build().start()) {
            spec.commandLine()
                    .getOut()
                    .println("demo provider of " + UserService.class.getName() + " at " + server.endpoint()
                            + "; try: xrpc list --address " + server.endpoint());
            spec.commandLine().getOut().flush();
            new CountDownLatch(1).await(); // until the process is killed
        }
        return 0;
    }
}
