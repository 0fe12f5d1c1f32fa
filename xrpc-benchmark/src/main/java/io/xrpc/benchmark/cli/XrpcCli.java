package io.xrpc.benchmark.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.client.GenericException;
import io.xrpc.client.GenericService;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServerReflection;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.TlsConfig;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.server.RpcServer;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
 * </pre>
 *
 * <p>Results print as JSON on standard output. A failure prints one JSON object
 * ({@code error}, {@code message}, and for a declared exception {@code exception} and
 * {@code fields}) and exits with a code that says what failed: see {@link #exitCode}.
 */
@Command(name = "xrpc", mixinStandardHelpOptions = true, version = "xrpc 0.1",
        description = "Lists, describes and calls XRpc services without their jar.",
        subcommands = {XrpcCli.ListCommand.class, XrpcCli.DescribeCommand.class, XrpcCli.CallCommand.class,
                XrpcCli.DemoProvider.class},
        footer = {"", "Every answer, a failure too, is JSON on standard output. Exit codes:",
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
                "  22  UNAUTHENTICATED"})
public final class XrpcCli implements Runnable {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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
            m.put("help", "xrpc " + (e.getCommandLine().getParent() == null ? "" : e.getCommandLine().getCommandName()
                    + " ") + "--help");
            e.getCommandLine().getOut().println(JSON.writeValueAsString(m));
            e.getCommandLine().getOut().flush();
            return 2;
        });
        return cl.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: list, describe, call or demo-provider");
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

    /** Where the provider is and how to reach it: the options every command shares. */
    static final class Target {
        @Option(names = "--address", description = "The provider's host:port.")
        String address;

        @Option(names = "--registry", description = "A registry address, such as zookeeper://127.0.0.1:2181, to find"
                + " providers in (describe and call).")
        String registry;

        @Option(names = "--timeout", converter = io.xrpc.benchmark.stress.DurationConverter.class,
                description = "Deadline of the call (default: 3s).")
        Duration timeout = Duration.ofSeconds(3);

        @Option(names = "--wait", converter = io.xrpc.benchmark.stress.DurationConverter.class,
                description = "Wait up to this long for a provider that is not reachable yet (starting, or not yet"
                        + " registered), such as 30s (default: 0s, fail at once).")
        Duration waitFor = Duration.ZERO;

        /** Runs {@code action}, again while it fails UNAVAILABLE (no provider reachable) within --wait. */
        <T> T waiting(Callable<T> action) throws Exception {
            long until = System.nanoTime() + waitFor.toNanos();
            for (;;) {
                try {
                    return action.call();
                } catch (RpcException e) {
                    if (e.status() != RpcStatus.UNAVAILABLE || System.nanoTime() - until >= 0) {
                        throw e;
                    }
                    Thread.sleep(200); // a provider starting: look again
                }
            }
        }

        @Mixin
        Access access = new Access();

        RpcClient client(CommandLine cl) throws Exception {
            if (address == null && registry == null) {
                throw new CommandLine.ParameterException(cl, "give --address host:port or --registry ADDRESS");
            }
            try {
                access.checkPlaintextToken(address);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, e.getMessage());
            }
            return XrpcCli.client(address == null ? registry : null, address, access, timeout);
        }

        /** The reference options of {@code service}: at --address, or the providers the registry lists. */
        ReferenceOptions options(String service) {
            ServiceKey key = access.key(service);
            ReferenceOptions.Builder o = ReferenceOptions.builder().timeout(timeout).version(key.version())
                    .group(key.group());
            if (address != null) {
                o.address(address);
            }
            return o.build();
        }

        /**
         * The address of a provider of {@code service}: --address, or the first the registry lists,
         * since reflection is asked of one provider and is not itself registered.
         */
        String providerOf(String service) {
            return address != null ? address : XrpcCli.providerOf(registry, access.key(service));
        }

        ReferenceOptions at(String address) {
            return ReferenceOptions.builder().address(address).timeout(timeout).build();
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists the services a provider exports (--address: from its reflection service), or the"
                    + " interfaces a registry has providers of (--registry).")
    static final class ListCommand implements Callable<Integer> {
        @Mixin
        Target target;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CommandLine cl = spec.commandLine();
            if (target.address == null && target.registry != null) {
                // The registry knows the interfaces; what each exports, its providers' reflection says.
                try (Registry r = Registries.create(target.registry)) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("registry", io.xrpc.registry.RegistryConfig.mask(target.registry));
                    m.put("interfaces", r.interfaceNames());
                    cl.getOut().println(JSON.writeValueAsString(m));
                    return 0;
                }
            }
            try (RpcClient client = target.client(cl)) {
                Object services = target.waiting(() -> client.generic(ServerReflection.class.getName(),
                        target.at(target.address)).invoke("services", List.of(), List.of()));
                cl.getOut().println(JSON.writeValueAsString(services));
                return 0;
            }
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Describes a service: its methods, their parameter and result types, and each type's fields.")
    static final class DescribeCommand implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", paramLabel = "SERVICE", description = "The interface name, such as com.acme.Orders.")
        String service;

        @Option(names = "--schema", description = "Print everything reflection says: each method's parameters and"
                + " result, and each type, as JSON Schema (default: a line per method and a field list per type).")
        boolean schema;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CommandLine cl = spec.commandLine();
            try (RpcClient client = target.client(cl)) {
                Map<String, Object> d = target.waiting(() -> describe(client, target, service, cl));
                cl.getOut().println(JSON.writeValueAsString(schema ? d : brief(d)));
                return 0;
            }
        }
    }

    /**
     * What a person reads of a description: the service's key and serializers, each method as the
     * line a Java declaration would be ({@code User getUser(long id)}), and each type's fields with
     * their Java types. {@code --schema} prints the whole.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> brief(Map<String, Object> d) {
        Map<String, Object> b = new LinkedHashMap<>();
        for (String k : List.of("service", "version", "group", "serializers")) {
            Object v = d.get(k);
            if (v != null && !"".equals(v)) {
                b.put(k, v);
            }
        }
        List<String> methods = new java.util.ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) d.getOrDefault("methods", List.of())) {
            List<String> types = (List<String>) m.getOrDefault("parameterTypes", List.of());
            List<String> names = (List<String>) m.getOrDefault("parameterNames", List.of());
            List<Object> schemas = (List<Object>) m.getOrDefault("parameters", List.of());
            StringBuilder line = new StringBuilder(shortType(String.valueOf(m.get("resultType")))).append(' ')
                    .append(m.get("name")).append('(');
            for (int i = 0; i < types.size(); i++) {
                // The erased type (what --types takes), with its elements' type where the schema knows it.
                Object items = i < schemas.size() && schemas.get(i) instanceof Map<?, ?> ps ? ps.get("items") : null;
                String element = items == null ? "any" : typeOf(items);
                line.append(i == 0 ? "" : ", ").append(shortType(types.get(i)))
                        .append(element.equals("any") || types.get(i).endsWith("]") ? "" : "<" + element + ">")
                        .append(i < names.size() ? " " + names.get(i) : "");
            }
            line.append(')');
            List<String> thrown = (List<String>) m.getOrDefault("exceptions", List.of());
            if (!thrown.isEmpty()) {
                line.append(" throws ").append(String.join(", ", thrown.stream().map(XrpcCli::shortType).toList()));
            }
            if (Boolean.TRUE.equals(m.get("idempotent"))) {
                line.append("  @Idempotent");
            }
            methods.add(line.toString());
        }
        b.put("methods", methods);
        Map<String, Object> types = new java.util.TreeMap<>();
        ((Map<String, Object>) d.getOrDefault("types", Map.of())).forEach((name, schema) -> {
            Map<String, String> fields = new LinkedHashMap<>();
            Object props = schema instanceof Map<?, ?> s ? s.get("properties") : null;
            if (props instanceof Map<?, ?> p) {
                p.forEach((field, f) -> fields.put(String.valueOf(field), typeOf(f)));
            }
            Object values = schema instanceof Map<?, ?> s ? s.get("enum") : null;
            types.put(name, values != null ? Map.of("enum", values) : fields);
        });
        b.put("types", types);
        b.put("more", "--schema prints each method's parameters and each type as JSON Schema");
        return b;
    }

    /** {@code String} for {@code java.lang.String}, {@code List<User>} kept with its packages for the user's own types. */
    private static String shortType(String type) {
        return type.replaceAll("\\bjava\\.(lang|util|time|math)\\.", "");
    }

    /** A property's JSON Schema as a Java-ish type name: long, String, LocalDate, List of com.acme.Item... */
    private static String typeOf(Object property) {
        if (!(property instanceof Map<?, ?> p)) {
            return "any";
        }
        if (p.get("javaType") != null) {
            return shortType(String.valueOf(p.get("javaType")));
        }
        if (p.get("$ref") != null) {
            String ref = String.valueOf(p.get("$ref"));
            return ref.substring(ref.lastIndexOf('/') + 1);
        }
        String format = p.get("format") == null ? "" : String.valueOf(p.get("format"));
        return switch (String.valueOf(p.get("type"))) {
            case "integer" -> format.equals("int64") ? "long" : format.equals("int32") ? "int" : "integer";
            case "number" -> format.isEmpty() ? "number" : format;
            case "string" -> format.isEmpty() ? "String" : "String (" + format + ")";
            case "boolean" -> "boolean";
            case "array" -> "array of " + typeOf(p.get("items"));
            case "object" -> p.get("additionalProperties") != null ? "map of " + typeOf(p.get("additionalProperties"))
                    : "object";
            default -> "any";
        };
    }

    /**
     * A client with {@code access}'s TLS and token, a deadline and connect timeout of
     * {@code timeout}, and {@code registry} when given (null: references name their address).
     */
    public static RpcClient client(String registry, String address, Access access, Duration timeout) throws Exception {
        access.checkPlaintextToken(registry != null ? null : address);
        RpcClient.Builder b = RpcClient.builder().timeout(timeout).connectTimeout(timeout);
        if (registry != null) {
            b.registry(registry);
        }
        return access.applyTo(b).build();
    }

    /** What the reflection of a provider of {@code service} says of it. */
    static Map<String, Object> describe(RpcClient client, Target target, String service, CommandLine cl) {
        return describe(client, target.providerOf(service), target.access.key(service), target.timeout);
    }

    /**
     * What the reflection service at {@code address} says of {@code key}; a service it does not
     * export fails {@link RpcStatus#SERVICE_NOT_FOUND}, naming those it does.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> describe(RpcClient client, String address, ServiceKey key, Duration timeout) {
        try {
            return (Map<String, Object>) client.generic(ServerReflection.class.getName(),
                            ReferenceOptions.builder().address(address).timeout(timeout).build())
                    .invoke("describe", List.of("java.lang.String"), List.of(key.toString()));
        } catch (RpcException e) {
            if (e.status() == RpcStatus.APPLICATION_ERROR
                    && IllegalArgumentException.class.getName().equals(e.remoteClassName())) {
                throw new RpcException(RpcStatus.SERVICE_NOT_FOUND, address + ": " + e.remoteMessage());
            }
            throw e;
        }
    }

    /** The address of the first provider of {@code key} that {@code registry} lists. */
    public static String providerOf(String registry, ServiceKey key) {
        try (Registry r = Registries.create(registry);
             ServiceDiscovery.Subscription s = r.subscribe(key, l -> {
             })) {
            List<ServiceInstance> found = s.instances();
            if (found.isEmpty()) {
                String where = io.xrpc.registry.RegistryConfig.mask(registry) + (r.isConnected() ? "" : " (not connected)");
                List<ServiceKey> others = List.of();
                try {
                    others = r.keysOf(key.interfaceName());
                } catch (RuntimeException cannot) {
                    // this registry cannot list them: say only what is missing
                }
                if (!others.isEmpty()) {
                    // Another version or group is there: waiting would not help, the key is wrong.
                    throw new RpcException(RpcStatus.SERVICE_NOT_FOUND, "no provider of " + key + " in " + where
                            + "; registered: " + String.join(", ", others.stream().map(ServiceKey::toString).toList())
                            + " (--service-version and --group choose one)");
                }
                throw new RpcException(RpcStatus.UNAVAILABLE, "no provider of " + key + " in " + where);
            }
            return found.get(0).endpoint().toString();
        }
    }

    @Command(name = "call", mixinStandardHelpOptions = true,
            description = "Calls SERVICE/METHOD with JSON arguments and prints the result as JSON.")
    static final class CallCommand implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", paramLabel = "SERVICE/METHOD", description = "Such as com.acme.Orders/find.")
        String method;

        @Parameters(index = "1", arity = "0..1", paramLabel = "ARGS",
                description = "A JSON array of the arguments, such as '[42]' or '[{\"sku\": \"tea\"}, 2]'; a value"
                        + " that is not an array is the one argument; '@file' reads it from a file (default: []).")
        String arguments = "[]";

        @Option(names = "--types", split = ",", description = "The parameter types, such as long or"
                + " com.acme.Query,int; needed only when the provider's reflection is off or the name is overloaded"
                + " with as many parameters.")
        List<String> types;

        @Option(names = "--serializer", description = "Only json: a call without the service's classes travels in"
                + " json, which the provider reads as its declared types (default: json).")
        String serializer = "json";

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CommandLine cl = spec.commandLine();
            int slash = method.lastIndexOf('/');
            if (slash <= 0 || slash == method.length() - 1) {
                throw new CommandLine.ParameterException(cl, "SERVICE/METHOD: " + method
                        + " (expected: the interface name, '/', the method name, such as com.acme.Orders/find)");
            }
            if (!serializer.equals("json")) {
                throw new CommandLine.ParameterException(cl, "--serializer " + serializer + ": a call without the"
                        + " service's classes travels in json (the only serializer that reads plain values as the"
                        + " declared types)");
            }
            String service = method.substring(0, slash);
            String name = method.substring(slash + 1);
            List<Object> args = Arguments.parse(arguments, cl);
            try (RpcClient client = target.client(cl)) {
                List<String> parameterTypes = types != null ? types.stream().filter(t -> !t.isBlank()).toList()
                        : Arguments.typesOf(target.waiting(() -> describe(client, target, service, cl)), name,
                                args.size(), cl);
                Object result = target.waiting(() -> client.generic(service, target.options(service))
                        .invoke(name, parameterTypes, args));
                cl.getOut().println(JSON.writeValueAsString(result));
                return 0;
            }
        }
    }

    /** Argument parsing and overload resolution, shared with the stress tool's {@code --target} mode. */
    public static final class Arguments {
        private Arguments() {
        }

        /** {@code '[1, "a"]'} as its elements, any other JSON value as the one argument; {@code @file} read first. */
        public static List<Object> parse(String text, CommandLine cl) throws Exception {
            String json = text.startsWith("@") ? Files.readString(Path.of(text.substring(1))) : text;
            Object value;
            try {
                value = JSON.readValue(json, Object.class);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                throw new CommandLine.ParameterException(cl, "ARGS is not JSON: " + e.getOriginalMessage()
                        + " (expected: a JSON array of the arguments, such as '[42]')");
            }
            if (value instanceof List<?> list) {
                return new ArrayList<>(list);
            }
            List<Object> one = new ArrayList<>();
            one.add(value);
            return one;
        }

        /** The parameter types of the one method {@code name} with {@code count} parameters the description lists. */
        @SuppressWarnings("unchecked")
        public static List<String> typesOf(Map<String, Object> description, String name, int count, CommandLine cl) {
            List<Map<String, Object>> methods = (List<Map<String, Object>>) description.get("methods");
            List<List<String>> found = new ArrayList<>();
            List<String> all = new ArrayList<>();
            for (Map<String, Object> m : methods) {
                all.add((String) m.get("signature"));
                List<String> types = (List<String>) m.get("parameterTypes");
                if (name.equals(m.get("name")) && types.size() == count) {
                    found.add(types);
                }
            }
            if (found.size() != 1) {
                throw new CommandLine.ParameterException(cl, (found.isEmpty() ? "no method " : "several methods ")
                        + name + " with " + count + " parameters in " + description.get("service") + " (it has: "
                        + all + ")" + (found.isEmpty() ? "" : "; pick one with --types"));
            }
            return found.get(0);
        }
    }

    @Command(name = "demo-provider", mixinStandardHelpOptions = true,
            description = "Serves the demo UserService (the stress tool's model) until stopped, to try the other commands on.")
    static final class DemoProvider implements Callable<Integer> {
        @Option(names = "--port", description = "The port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
        int port = 20880;

        @Option(names = "--host", description = "The address to listen on (default: ${DEFAULT-VALUE}).")
        String host = "127.0.0.1";

        @Option(names = "--registry", description = "Also register in this registry, such as zookeeper://127.0.0.1:2181.")
        String registry;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            RpcServer.Builder b = RpcServer.builder().host(host).port(port)
                    .service(UserService.class, new UserServiceImpl());
            if (registry != null) {
                b.registry(registry);
            }
            try (RpcServer server = b.build().start()) {
                spec.commandLine().getOut().println("demo provider of " + UserService.class.getName() + " at "
                        + server.endpoint() + "; try: xrpc list --address " + server.endpoint());
                spec.commandLine().getOut().flush();
                new CountDownLatch(1).await(); // until the process is killed
            }
            return 0;
        }
    }
}
