package io.xrpc.benchmark.cli;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.xrpc.client.RpcClient;
import io.xrpc.stream.Streams;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Flow;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code xrpc call}: one call with JSON arguments, its result printed as JSON; a method whose
 * provider streams prints one JSON value per line as each message arrives.
 */
@Command(
        name = "call",
        mixinStandardHelpOptions = true,
        description = "Calls SERVICE/METHOD with JSON arguments and prints the result as JSON; for a method"
                + " whose provider streams, one JSON value per line as the messages arrive.")
final class CallCommand implements Callable<Integer> {
    /** A stream's messages: one compact JSON value a line (JSON Lines), so that a line is a message. */
    private static final ObjectWriter LINE = XrpcCli.JSON.writer().without(SerializationFeature.INDENT_OUTPUT);

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

    @Option(
            names = "--stream",
            description = "Read the method's answer as a stream (one JSON value per line); needed only with"
                    + " --types, since the provider's reflection says which methods stream.")
    boolean stream;

    @Option(
            names = "--limit",
            description = "With a stream: stop after this many messages, cancelling the rest (default: all).")
    long limit = Long.MAX_VALUE;

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
            List<String> parameterTypes;
            boolean streams = stream;
            if (types != null) {
                parameterTypes = types.stream().filter(t -> !t.isBlank()).toList();
            } else {
                Map<String, Object> description = target.waiting(() -> Providers.describe(client, target, service));
                parameterTypes = Arguments.typesOf(description, name, args.size(), cl);
                streams |= Arguments.providerStreams(description, name, parameterTypes);
            }
            if (streams) {
                return printStream(client, service, name, parameterTypes, args, cl.getOut());
            }
            Object result = target.waiting(
                    () -> client.generic(service, target.options(service)).invoke(name, parameterTypes, args));
            cl.getOut().println(XrpcCli.JSON.writeValueAsString(result));
            return 0;
        }
    }

    /** Prints each message as it arrives, one JSON value a line, up to {@link #limit}; throws the stream's failure. */
    private int printStream(
            RpcClient client, String service, String name, List<String> types, List<Object> args, PrintWriter out)
            throws Exception {
        Flow.Publisher<Object> messages = client.generic(service, target.options(service)).stream(name, types, args);
        try (Stream<Object> s = Streams.toStream(messages)) {
            Iterator<Object> it = s.iterator();
            for (long n = 0; n < limit && it.hasNext(); n++) {
                out.println(LINE.writeValueAsString(it.next()));
                out.flush();
            }
        }
        return 0;
    }
}
