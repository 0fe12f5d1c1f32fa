package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code xrpc describe}: one service's methods and types, briefly, or whole with {@code --schema}. */
@Command(
        name = "describe",
        mixinStandardHelpOptions = true,
        description = "Describes a service: its methods, their parameter and result types, and each type's fields.")
final class DescribeCommand implements Callable<Integer> {
    @Mixin
    Target target;

    @Parameters(index = "0", paramLabel = "SERVICE", description = "The interface name, such as com.acme.Orders.")
    String service;

    @Option(
            names = "--schema",
            description = "Print everything reflection says: each method's parameters and"
                    + " result, and each type, as JSON Schema (default: a line per method and a field list per type).")
    boolean schema;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        try (RpcClient client = target.client(cl)) {
            Map<String, Object> d = target.waiting(() -> Providers.describe(client, target, service));
            cl.getOut().println(XrpcCli.JSON.writeValueAsString(schema ? d : brief(d)));
            return 0;
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
        List<String> methods = new ArrayList<>();
        for (Map<String, Object> m : (List<Map<String, Object>>) d.getOrDefault("methods", List.of())) {
            List<String> types = (List<String>) m.getOrDefault("parameterTypes", List.of());
            List<String> names = (List<String>) m.getOrDefault("parameterNames", List.of());
            List<Object> schemas = (List<Object>) m.getOrDefault("parameters", List.of());
            String result = shortType(String.valueOf(m.get("resultType")));
            Object shape = m.get("shape");
            if ("SERVER_STREAM".equals(shape) || "BIDI_STREAM".equals(shape)) {
                result = "stream of " + result; // one JSON value a line from xrpc call
            }
            StringBuilder line =
                    new StringBuilder(result).append(' ').append(m.get("name")).append('(');
            for (int i = 0; i < types.size(); i++) {
                // The erased type (what --types takes), with its elements' type where the schema knows it.
                Object items = i < schemas.size() && schemas.get(i) instanceof Map<?, ?> ps ? ps.get("items") : null;
                String element = items == null ? "any" : typeOf(items);
                line.append(i == 0 ? "" : ", ")
                        .append(shortType(types.get(i)))
                        .append(element.equals("any") || types.get(i).endsWith("]") ? "" : "<" + element + ">")
                        .append(i < names.size() ? " " + names.get(i) : "");
            }
            line.append(')');
            List<String> thrown = (List<String>) m.getOrDefault("exceptions", List.of());
            if (!thrown.isEmpty()) {
                line.append(" throws ")
                        .append(String.join(
                                ", ",
                                thrown.stream().map(DescribeCommand::shortType).toList()));
            }
            if (Boolean.TRUE.equals(m.get("idempotent"))) {
                line.append("  @Idempotent");
            }
            methods.add(line.toString());
        }
        b.put("methods", methods);
        Map<String, Object> types = new TreeMap<>();
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
            case "object" ->
                p.get("additionalProperties") != null ? "map of " + typeOf(p.get("additionalProperties")) : "object";
            default -> "any";
        };
    }
}
