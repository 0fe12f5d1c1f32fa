package io.xrpc.benchmark.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.xrpc.client.GenericException;
import io.xrpc.client.GenericService;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServerReflection;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code xrpc} command line: list what a provider exports, describe a service, and call any
 * method with JSON, without the service's jar (as grpcurl does for gRPC and Dubbo's telnet
 * {@code invoke} for Dubbo). It asks the provider's {@link ServerReflection} and calls through a
 * {@link GenericService}, so a call goes exactly as an application's would: the same deadline,
 * TLS, token, discovery and failover.
 *
 * <pre>
 * xrpc list     --address 127.0.0.1:20880
 * xrpc describe io.xrpc.benchmark.model.UserService --address 127.0.0.1:20880
 * xrpc call     io.xrpc.benchmark.model.UserService/getUser '[1]' --address 127.0.0.1:20880
 * xrpc proto    io.xrpc.benchmark.model.UserService
 * </pre>
 *
 * <p>Results print as JSON on standard output. A failure prints one JSON object
 * ({@code error}, {@code message}, and for a declared exception {@code exception} and
 * {@code fields}) and exits with a code that says what failed: see {@link #exitCode}.
 */
@Command(
        name = "xrpc",
        mixinStandardHelpOptions = true,
        version = "xrpc 0.1",
        description = "Lists, describes and calls XRpc services without their jar.",
        subcommands = {
            ListCommand.class,
            DescribeCommand.class,
            CallCommand.class,
            ProtoCommand.class,
            DemoProvider.class
        },
        footer = {
            "",
            "Every answer, a failure too, is JSON on standard output. Exit codes:",
            "  0   success",
            "  1   an error of this tool or its connection",
            "  2   a wrong command line",
            "  10 + the XRpc status of a failed call:",
            "  11  APPLICATION_ERROR (the method threw)",
            "  12  SERVER_BUSY",
            "  13  DEADLINE_EXCEEDED",
            "  14  SERVICE_NOT_FOUND (the error names the versions and groups exported)",
            "  15  METHOD_NOT_FOUND",
            "  16  SERIALIZATION_ERROR (an argument the method cannot take)",
            "  17  UNAVAILABLE (no provider reachable; --wait 30s waits for one)",
            "  22  UNAUTHENTICATED"
        })
public final class XrpcCli implements Runnable {
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs one command with its output on {@code out} and {@code err}; returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new XrpcCli());
        cl.setExpandAtFiles(false); // '@file' is ARGS' own form: picocli would split the JSON on spaces
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getOut().println(JSON.writeValueAsString(errorOf(e)));
            line.getOut().flush();
            return exitCode(e);
        });
        // A wrong command line answers JSON too, with a pointer to the usage instead of all of it.
        cl.setParameterExceptionHandler((e, line) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", "USAGE");
            m.put("message", e.getMessage());
            m.put(
                    "help",
                    "xrpc "
                            + (e.getCommandLine().getParent() == null
                                    ? ""
                                    : e.getCommandLine().getCommandName() + " ") + "--help");
            e.getCommandLine().getOut().println(JSON.writeValueAsString(m));
            e.getCommandLine().getOut().flush();
            return 2;
        });
        return cl.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "name a command: list, describe, call, proto or demo-provider");
    }

    /**
     * 0 for success; for a failed call 10 plus its {@link RpcStatus} code (a declared exception is
     * {@code APPLICATION_ERROR}, 11); 1 for anything else.
     */
    static int exitCode(Throwable e) {
        if (e instanceof GenericException) {
            return 10 + RpcStatus.APPLICATION_ERROR.code();
        }
        if (e instanceof RpcException r) {
            return 10 + r.status().code();
        }
        return 1;
    }

    static Map<String, Object> errorOf(Throwable e) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (e instanceof GenericException g) {
            m.put("error", RpcStatus.APPLICATION_ERROR.name());
            m.put("exception", g.className());
            m.put("message", g.remoteMessage());
            m.put("fields", g.fields());
        } else if (e instanceof RpcException r) {
            m.put("error", r.status().name());
            if (r.remoteClassName() != null) {
                m.put("exception", r.remoteClassName());
            }
            m.put("message", r.getMessage());
        } else {
            m.put("error", e.getClass().getSimpleName());
            m.put("message", String.valueOf(e.getMessage()));
        }
        return m;
    }
}
