package io.xrpc.benchmark.cli;

import com.fasterxml.jackson.core.JacksonException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/** Argument parsing and overload resolution, shared with the stress tool's {@code --target} mode. */
public final class Arguments {
    private Arguments() {}

    /** {@code '[1, "a"]'} as its elements, any other JSON value as the one argument; {@code @file} read first. */
    public static List<Object> parse(String text, CommandLine cl) throws Exception {
        String json = text.startsWith("@") ? Files.readString(Path.of(text.substring(1))) : text;
        Object value;
        try {
            value = XrpcCli.JSON.readValue(json, Object.class);
        } catch (JacksonException e) {
            throw new CommandLine.ParameterException(
                    cl,
                    "ARGS is not JSON: " + e.getOriginalMessage()
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
    /**
     * Whether the method of {@code name} and {@code parameterTypes} streams from the provider, as
     * the provider's reflection describes it (a provider from before streams says nothing: no).
     */
    public static boolean providerStreams(Map<String, Object> description, String name, List<String> parameterTypes) {
        List<Map<String, Object>> methods = (List<Map<String, Object>>) description.get("methods");
        for (Map<String, Object> m : methods) {
            if (name.equals(m.get("name")) && parameterTypes.equals(m.get("parameterTypes"))) {
                Object shape = m.get("shape");
                return "SERVER_STREAM".equals(shape) || "BIDI_STREAM".equals(shape);
            }
        }
        return false;
    }

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
            throw new CommandLine.ParameterException(
                    cl,
                    (found.isEmpty() ? "no method " : "several methods ")
                            + name + " with " + count + " parameters in " + description.get("service") + " (it has: "
                            + all + ")" + (found.isEmpty() ? "" : "; pick one with --types"));
        }
        return found.get(0);
    }
}
