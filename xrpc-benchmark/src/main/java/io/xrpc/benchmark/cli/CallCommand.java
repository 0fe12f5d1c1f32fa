package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code xrpc call}: one call with JSON arguments, its result printed as JSON. */
@Command(
        name = "call",
        mixinStandardHelpOptions = true,
        description = "Calls SERVICE/METHOD with JSON arguments and prints the result as JSON.")
final class CallCommand implements Callable<Integer> {
    @Mixin
    Target target;

    @Parameters(index = "0", paramLabel = "SERVICE/METHOD", description = "Such as com.acme.Orders/find.")
    String method;

    @Parameters(
            index = "1",
            arity = "0..1",
            paramLabel = "ARGS",
            description = "A JSON array of the arguments, such as '[42]' or '[{\"sku\": \"tea\"}, 2]'; a value"
                    + " that is not an array is the one argument; '@file' reads it from a file (default: []).")
    String arguments = "[]";

    @Option(
            names = "--types",
            split = ",",
            description = "The parameter types, such as long or"
                    + " com.acme.Query,int; needed only when the provider's reflection is off or the name is overloaded"
                    + " with as many parameters.")
    List<String> types;

    @Option(
            names = "--serializer",
            description = "Only json: a call without the service's classes travels in"
                    + " json, which the provider reads as its declared types (default: json).")
    String serializer = "json";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        int slash = method.lastIndexOf('/');
        if (slash <= 0 || slash == method.length() - 1) {
            throw new CommandLine.ParameterException(
                    cl,
                    "SERVICE/METHOD: " + method
                            + " (expected: the interface name, '/', the method name, such as com.acme.Orders/find)");
        }
        if (!serializer.equals("json")) {
            throw new CommandLine.ParameterException(
                    cl,
                    "--serializer " + serializer + ": a call without the"
                            + " service's classes travels in json (the only serializer that reads plain values as the"
                            + " declared types)");
        }
        String service = method.substring(0, slash);
        String name = method.substring(slash + 1);
        List<Object> args = Arguments.parse(arguments, cl);
        try (RpcClient client = target.client(cl)) {
            List<String> parameterTypes = types != null
                    ? types.stream().filter(t -> !t.isBlank()).toList()
                    : Arguments.typesOf(
                            target.waiting(() -> Providers.describe(client, target, service)), name, args.size(), cl);
            Object result = target.waiting(
                    () -> client.generic(service, target.options(service)).invoke(name, parameterTypes, args));
            cl.getOut().println(XrpcCli.JSON.writeValueAsString(result));
            return 0;
        }
    }
}
