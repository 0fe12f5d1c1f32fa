package io.xrpc.server;

import io.xrpc.common.Idempotent;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServerReflection;
import io.xrpc.internal.Texts;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's {@link ServerReflection}: read from the dispatcher's table at each call, so it
 * shows services exported or withdrawn while the server runs. Shapes follow JSON Schema's words
 * ({@code type}, {@code format}, {@code items}, {@code properties}, {@code enum}, {@code $ref}) and
 * describe the JSON the {@code json} serializer reads and writes: objects by their fields, records
 * by their components.
 */
final class Reflection implements ServerReflection {
    /** Classes one description names at most: a service exchanging more is cut there, and says so. */
    static final int MAX_TYPES = 256;

    private final ServiceDispatcher dispatcher;
    /** Each export's description, made once: the table's entries are replaced, not changed, when exports change. */
    private final Map<ServiceDispatcher.Exported, Map<String, Object>> described = new ConcurrentHashMap<>();

    /** The serializers of the server, sorted: what a service that accepts any accepts. */
    private final List<String> serverSerializers;

    Reflection(ServiceDispatcher dispatcher, Collection<String> serverSerializers) {
        this.dispatcher = dispatcher;
        this.serverSerializers = serverSerializers.stream().sorted().toList();
    }

    @Override
    public List<Map<String, Object>> services() {
        List<Map<String, Object>> all = new ArrayList<>();
        for (ServiceDispatcher.Exported e : dispatcher.exports()) {
            all.add(summary(e, serverSerializers));
        }
        return all;
    }

    private static Map<String, Object> summary(ServiceDispatcher.Exported e, List<String> serverSerializers) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("service", e.key().toString());
        m.put("interface", e.key().interfaceName());
        m.put("version", e.key().version());
        m.put("group", e.key().group());
        // Those it accepts; one that accepts any lists the server's, rather than an empty list.
        m.put(
                "serializers",
                e.accepted().isEmpty()
                        ? serverSerializers
                        : e.accepted().stream().sorted().toList());
        m.put("methods", e.methods().keySet().stream().sorted().toList());
        return m;
    }

    @Override
    public Map<String, Object> describe(String service) {
        List<ServiceDispatcher.Exported> matches = new ArrayList<>();
        List<String> known = new ArrayList<>();
        for (ServiceDispatcher.Exported e : dispatcher.exports()) {
            known.add(e.key().toString());
            if (e.key().toString().equals(service)) {
                matches.clear();
                matches.add(e);
                break;
            }
            if (e.key().interfaceName().equals(service)) {
                matches.add(e);
            }
        }
        if (matches.size() != 1) {
            // Quoted, cut and escaped: the caller's text ends up in the provider's log.
            throw new IllegalArgumentException((matches.isEmpty() ? "no service " : "several services match ")
                    + Texts.quote(service, 200) + " (exported: " + known + ")");
        }
        ServiceDispatcher.Exported e = matches.get(0);
        Map<String, Object> d = described.get(e);
        if (d == null) {
            d = describe(e, serverSerializers);
            described.keySet().retainAll(dispatcher.exports()); // only what is exported now
            described.put(e, d);
        }
        return d;
    }

    private static Map<String, Object> describe(ServiceDispatcher.Exported e, List<String> serverSerializers) {
        Map<String, Object> d = summary(e, serverSerializers);
        Shapes shapes = new Shapes();
        List<Map<String, Object>> methods = new ArrayList<>();
        for (ServerMethod sm : new TreeMap<>(e.methods()).values()) {
            MethodDescriptor md = sm.descriptor();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", md.name());
            m.put("signature", md.signature());
            m.put(
                    "parameterTypes",
                    Arrays.stream(md.parameterTypes()).map(Class::getTypeName).toList());
            if (Arrays.stream(md.method().getParameters()).allMatch(Parameter::isNamePresent)) {
                m.put(
                        "parameterNames",
                        Arrays.stream(md.method().getParameters())
                                .map(Parameter::getName)
                                .toList());
            }
            List<Object> parameters = new ArrayList<>();
            for (Type t : md.genericParameterTypes()) {
                parameters.add(shapes.of(t));
            }
            m.put("parameters", parameters);
            m.put("shape", md.shape().name());
            m.put("resultType", md.genericResultType().getTypeName());
            if (md.streamType() != null) {
                m.put("streamType", md.genericStreamType().getTypeName());
            }
            m.put("result", md.isVoid() ? Map.of("type", "null") : shapes.of(md.genericResultType()));
            m.put("idempotent", md.method().isAnnotationPresent(Idempotent.class));
            m.put(
                    "exceptions",
                    Arrays.stream(md.exceptionTypes()).map(Class::getName).toList());
            methods.add(m);
        }
        d.put("methods", methods);
        d.put("types", shapes.types);
        if (shapes.cut) {
            d.put("typesCut", "more than " + MAX_TYPES + " classes: the rest are shown as {}");
        }
        return d; // shared by later calls: nothing here changes it once made
    }

    /** JSON-Schema-like shapes of Java types; named classes collected once each in {@link #types}. */
    static final class Shapes {
        final Map<String, Object> types = new TreeMap<>();
        boolean cut;

        Map<String, Object> of(Type t) {
            if (t instanceof Class<?> c) {
                return ofClass(c, null);
            }
            if (t instanceof ParameterizedType p) {
                return ofClass((Class<?>) p.getRawType(), p.getActualTypeArguments());
            }
            if (t instanceof GenericArrayType a) {
                return array(of(a.getGenericComponentType()));
            }
            if (t instanceof WildcardType w && w.getUpperBounds().length == 1) {
                return of(w.getUpperBounds()[0]);
            }
            return Map.of(); // a type variable: anything
        }

        private Map<String, Object> ofClass(Class<?> c, Type[] args) {
            if (c == boolean.class || c == Boolean.class) {
                return Map.of("type", "boolean");
            }
            if (c == int.class
                    || c == Integer.class
                    || c == short.class
                    || c == Short.class
                    || c == byte.class
                    || c == Byte.class) {
                return Map.of("type", "integer", "format", "int32");
            }
            if (c == long.class || c == Long.class) {
                return Map.of("type", "integer", "format", "int64");
            }
            if (c == BigInteger.class) {
                return Map.of("type", "integer");
            }
            if (c == float.class
                    || c == Float.class
                    || c == double.class
                    || c == Double.class
                    || c == BigDecimal.class
                    || c == Number.class) {
                return Map.of("type", "number");
            }
            if (c == String.class || c == char.class || c == Character.class) {
                return Map.of("type", "string");
            }
            if (c == byte[].class) {
                return Map.of("type", "string", "format", "byte");
            }
            if (c == UUID.class) {
                return Map.of("type", "string", "format", "uuid");
            }
            if (c.getName().startsWith("java.time.") || Date.class.isAssignableFrom(c)) {
                return Map.of("type", "string", "format", timeFormat(c), "javaType", c.getName());
            }
            if (c.isEnum()) {
                return Map.of(
                        "type",
                        "string",
                        "enum",
                        Arrays.stream(c.getEnumConstants())
                                .map(x -> ((Enum<?>) x).name())
                                .toList());
            }
            if (c.isArray()) {
                return array(of(c.getComponentType()));
            }
            if (c == Optional.class) {
                return args != null ? of(args[0]) : Map.of();
            }
            if (Collection.class.isAssignableFrom(c)) {
                Map<String, Object> a = array(args != null && args.length == 1 ? of(args[0]) : Map.of());
                if (Set.class.isAssignableFrom(c)) {
                    a.put("uniqueItems", true);
                }
                return a;
            }
            if (Map.class.isAssignableFrom(c)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "object");
                m.put("additionalProperties", args != null && args.length == 2 ? of(args[1]) : Map.of());
                return m;
            }
            if (c == Object.class
                    || c.getName().startsWith("java.")
                    || c.isInterface()
                    || Modifier.isAbstract(c.getModifiers())) {
                return c == Object.class ? Map.of() : Map.of("javaType", c.getName());
            }
            define(c);
            return Map.of("$ref", "#/types/" + c.getName());
        }

        /** A named class: its shape goes to {@link #types} once, and every use points there. */
        private void define(Class<?> c) {
            if (types.containsKey(c.getName())) {
                return;
            }
            if (types.size() >= MAX_TYPES) {
                cut = true;
                types.put(c.getName(), Map.of());
                return;
            }
            Map<String, Object> shape = new LinkedHashMap<>();
            types.put(c.getName(), shape); // first: a class that holds itself refers to this entry
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> required = new ArrayList<>();
            if (c.isRecord()) {
                for (RecordComponent rc : c.getRecordComponents()) {
                    properties.put(rc.getName(), of(rc.getGenericType()));
                    if (rc.getType().isPrimitive()) {
                        required.add(rc.getName());
                    }
                }
            } else {
                for (Class<?> k = c; k != null && !k.getName().startsWith("java."); k = k.getSuperclass()) {
                    for (Field f : k.getDeclaredFields()) {
                        if (Modifier.isStatic(f.getModifiers())
                                || Modifier.isTransient(f.getModifiers())
                                || f.isSynthetic()) {
                            continue;
                        }
                        properties.putIfAbsent(f.getName(), of(f.getGenericType()));
                        if (f.getType().isPrimitive()) {
                            required.add(f.getName());
                        }
                    }
                }
            }
            shape.put("type", "object");
            shape.put("javaType", c.getName());
            shape.put("properties", properties);
            if (!required.isEmpty()) {
                shape.put("required", required);
            }
        }

        private static Map<String, Object> array(Map<String, Object> items) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("type", "array");
            a.put("items", items);
            return a;
        }

        private static String timeFormat(Class<?> c) {
            return switch (c.getSimpleName()) {
                case "LocalDate" -> "date";
                case "LocalTime", "OffsetTime" -> "time";
                case "Duration", "Period" -> "duration";
                default -> "date-time";
            };
        }
    }
}
