package io.xrpc.serialize.protobuf;

import io.xrpc.common.MethodDescriptor;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.RemoteExceptions;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The protocol-buffer contract of a Java service interface, derived from its methods and the types
 * they exchange by the rules of the {@code protobuf} serializer, which reads and writes exactly
 * what it describes: {@link #proto()} is a {@code .proto} file for {@code protoc} or a loader,
 * {@link #fileDescriptor()} the same as a {@code FileDescriptorProto} for gRPC server reflection.
 *
 * <p>Names: the package is the interface's Java package (and, for a nested interface, its outer
 * classes), the service the interface's simple name, so the gRPC path of a method is
 * {@code /{interface}/{method}} as for XRpc's HTTP calls. A method's rpc keeps its Java name. A
 * method taking one message takes it as its request; otherwise its request is
 * {@code {Method}Request} holding its parameters as fields 1, 2, ... in order (none:
 * {@code google.protobuf.Empty}). A result that is a message is the response; {@code void} is
 * {@code google.protobuf.Empty}; any other result is field 1 ({@code value}) of
 * {@code {Method}Response}. Messages are named by their class's simple name; a clash gets a number.
 *
 * <p>What protobuf cannot express is listed in {@link #problems()} and in the file, and the method
 * is left out of the service: an overloaded name (gRPC has one method per name), a parameter beside
 * a caller's stream, or a type {@link ProtoTypes} does not map. Such a method stays callable over
 * JSON and XRpc's binary protocol.
 */
public final class ProtoContract {
    private static final ProtoTypes TYPES = new ProtoTypes(ClassAllowList.withDefaults(), ReadLimits.defaults());
    private static final ClassValue<ProtoContract> CONTRACTS = new ClassValue<>() {
        @Override
        protected ProtoContract computeValue(Class<?> type) {
            return new ProtoContract(type);
        }
    };

    static final String EMPTY = "google.protobuf.Empty";
    static final String TIMESTAMP = "google.protobuf.Timestamp";
    static final String DURATION = "google.protobuf.Duration";

    /** An rpc of the service. */
    public record Rpc(
            String name,
            String signature,
            String input,
            String output,
            boolean clientStreaming,
            boolean serverStreaming) {}

    /** A field of a message as the file states it. */
    record FieldLine(String name, int number, String label, int type, String typeName, String mapKey, int mapKeyType) {}

    record MessageDef(String name, List<FieldLine> fields, String source) {}

    record EnumDef(String name, List<String> values, String source) {}

    private final Class<?> service;
    private final String packageName;
    private final String serviceName;
    private final Map<String, Rpc> rpcs = new TreeMap<>();
    private final List<String> problems = new ArrayList<>();
    private final Map<Type, String> names = new HashMap<>();
    private final Set<String> taken = new HashSet<>();
    private final Map<String, MessageDef> messages = new LinkedHashMap<>();
    private final Map<String, EnumDef> enums = new LinkedHashMap<>();
    private final Map<String, String> details = new HashMap<>();
    private final Set<String> imports = new java.util.TreeSet<>();

    /** The contract of {@code serviceInterface}, derived once. */
    public static ProtoContract of(Class<?> serviceInterface) {
        return CONTRACTS.get(serviceInterface);
    }

    private ProtoContract(Class<?> service) {
        this.service = service;
        String binary = service.getName();
        int dollar = binary.lastIndexOf('$');
        int dot = binary.lastIndexOf('.');
        if (dollar > dot) {
            this.packageName = binary.substring(0, dollar).replace('$', '.');
            this.serviceName = binary.substring(dollar + 1);
        } else {
            this.packageName = dot < 0 ? "" : binary.substring(0, dot);
            this.serviceName = binary.substring(dot + 1);
        }
        taken.add(serviceName);
        Map<String, List<Method>> byName = new TreeMap<>();
        for (Method m : service.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers()) && !m.isDefault()) {
                byName.computeIfAbsent(m.getName(), k -> new ArrayList<>()).add(m);
            }
        }
        for (Map.Entry<String, List<Method>> e : byName.entrySet()) {
            if (e.getValue().size() > 1) {
                problems.add(e.getKey() + " is overloaded (" + e.getValue().size() + " signatures): gRPC has one method"
                        + " per name; over JSON name one by its signature in the path");
                continue;
            }
            Method m = e.getValue().get(0);
            try {
                rpcs.put(m.getName(), rpc(m));
            } catch (RuntimeException u) { // Unsupported, or a signature MethodDescriptor refuses
                problems.add(MethodDescriptor.signatureOf(m) + ": " + u.getMessage());
            }
        }
        for (Rpc r : rpcs.values()) {
            for (Class<?> x : byName.get(r.name()).get(0).getExceptionTypes()) {
                detail(x);
            }
        }
    }

    private Rpc rpc(Method m) {
        MethodDescriptor d = MethodDescriptor.of(m);
        String upper =
                Character.toUpperCase(m.getName().charAt(0)) + m.getName().substring(1);
        // Check every type first: a method that fails leaves no message behind.
        Type[] wire = d.wireGenericParameterTypes();
        if (d.shape().callerStreams() && wire.length > 0) {
            throw new ProtoTypes.Unsupported(
                    "takes parameters beside its stream; a gRPC client stream carries" + " only its messages");
        }
        if (d.shape().callerStreams()) {
            TYPES.field("value", 1, d.genericStreamType());
        }
        for (int i = 0; i < wire.length; i++) {
            TYPES.field("p", i + 1, wire[i]);
        }
        if (!d.isVoid()) {
            TYPES.field("value", 1, d.genericResultType());
        }
        String input;
        if (d.shape().callerStreams()) {
            input = single(d.genericStreamType(), upper + "Request");
        } else if (wire.length == 0) {
            input = use(EMPTY);
        } else if (wire.length == 1 && ProtoTypes.isMessage(ProtoTypes.raw(wire[0]))) {
            input = messageName(wire[0]);
        } else {
            Parameter[] ps = m.getParameters();
            List<FieldLine> fields = new ArrayList<>();
            int n = 0;
            for (int i = 0; i < ps.length; i++) {
                if (i != d.streamParameter()) {
                    fields.add(line(ps[i].getName(), ++n, ps[i].getParameterizedType()));
                }
            }
            input = define(upper + "Request", fields, "the parameters of " + d.signature());
        }
        String output = d.isVoid() ? use(EMPTY) : single(d.genericResultType(), upper + "Response");
        return new Rpc(
                m.getName(),
                d.signature(),
                input,
                output,
                d.shape().callerStreams(),
                d.shape().providerStreams());
    }

    /** A value's message: itself when it is one, else field 1 of a message named {@code wrapper}. */
    private String single(Type t, String wrapper) {
        Class<?> raw = ProtoTypes.raw(t);
        if (ProtoTypes.isMessage(raw)) {
            return messageName(t);
        }
        return define(wrapper, List.of(line("value", 1, t)), "a value of " + t.getTypeName());
    }

    private void detail(Class<?> exception) {
        if (RemoteExceptions.isBroad(exception) || details.containsKey(exception.getName())) {
            return;
        }
        List<java.lang.reflect.Field> carried = RemoteExceptions.carriedFields(exception);
        try {
            if (carried.size() == 1
                    && ProtoTypes.isMessage(ProtoTypes.raw(carried.get(0).getGenericType()))) {
                // One message-valued field travels as that message itself (the serializer's rule for one argument).
                details.put(
                        exception.getName(),
                        qualified(messageName(carried.get(0).getGenericType())));
                return;
            }
            List<FieldLine> fields = new ArrayList<>();
            for (java.lang.reflect.Field f : carried) {
                TYPES.field(f.getName(), fields.size() + 1, f.getGenericType());
            }
            for (java.lang.reflect.Field f : carried) {
                fields.add(line(f.getName(), fields.size() + 1, f.getGenericType()));
            }
            String base = exception.getSimpleName();
            details.put(
                    exception.getName(),
                    qualified(define(base, fields, "the fields of " + exception.getName() + " in a status's details")));
        } catch (ProtoTypes.Unsupported u) {
            problems.add(exception.getName() + " is sent as a status without its fields: " + u.getMessage());
        }
    }

    private String qualified(String name) {
        return packageName.isEmpty() ? name : packageName + "." + name;
    }

    private String use(String wellKnown) {
        imports.add(
                switch (wellKnown) {
                    case EMPTY -> "google/protobuf/empty.proto";
                    case TIMESTAMP -> "google/protobuf/timestamp.proto";
                    default -> "google/protobuf/duration.proto";
                });
        return wellKnown;
    }

    private String define(String wanted, List<FieldLine> fields, String source) {
        String name = free(wanted);
        messages.put(name, new MessageDef(name, fields, source));
        return name;
    }

    private String free(String wanted) {
        String name = wanted;
        for (int i = 2; !taken.add(name); i++) {
            name = wanted + i;
        }
        return name;
    }

    /** The name of class {@code c}'s message, defining it (and what it holds) the first time. */
    private String messageName(Type c) {
        String known = names.get(c);
        if (known != null) {
            return known;
        }
        String name = free(simpleName(c));
        names.put(c, name);
        ProtoTypes.MessageValue m = TYPES.messageOf(c);
        if (m.broken != null) {
            throw new ProtoTypes.Unsupported(m.broken);
        }
        MessageDef def = new MessageDef(name, new ArrayList<>(), c.getTypeName());
        messages.put(name, def);
        for (ProtoTypes.Field f : m.fields.fields) {
            def.fields().add(line(f));
        }
        return name;
    }

    private String enumName(Class<?> c) {
        String known = names.get(c);
        if (known != null) {
            return known;
        }
        String name = free(simpleName(c));
        names.put(c, name);
        List<String> values = new ArrayList<>();
        for (Object k : c.getEnumConstants()) {
            values.add(((Enum<?>) k).name());
        }
        enums.put(name, new EnumDef(name, values, c.getName()));
        return name;
    }

    /** A class's simple name; a parameterization's adds its arguments' ({@code Page<User>}: {@code PageOfUser}). */
    private static String simpleName(Type t) {
        if (t instanceof java.lang.reflect.ParameterizedType p) {
            StringBuilder b = new StringBuilder(ProtoTypes.raw(p).getSimpleName()).append("Of");
            for (Type a : p.getActualTypeArguments()) {
                b.append(simpleName(a));
            }
            return b.toString();
        }
        Class<?> c = ProtoTypes.raw(t);
        return c.isArray()
                ? simpleName(c.getComponentType()) + "Array"
                : Character.toUpperCase(c.getSimpleName().charAt(0))
                        + c.getSimpleName().substring(1);
    }

    private FieldLine line(String name, int number, Type type) {
        return line(TYPES.field(name, number, type));
    }

    private FieldLine line(ProtoTypes.Field f) {
        if (f.kind == ProtoTypes.Kind.DYNAMIC) {
            throw new ProtoTypes.Unsupported("field " + f.name + " is of a type variable no declaration binds (a raw"
                    + " generic class, or a method's own type variable)");
        }
        String label = switch (f.kind) {
            case REPEATED -> "repeated";
            case NULLABLE, OPTIONAL -> f.value.isMessage() ? "" : "optional";
            default -> "";
        };
        if (f.kind == ProtoTypes.Kind.MAP) {
            return new FieldLine(
                    f.name,
                    f.number,
                    "map",
                    f.value.descriptorType,
                    typeName(f.value),
                    typeName(f.key),
                    f.key.descriptorType);
        }
        return new FieldLine(f.name, f.number, label, f.value.descriptorType, typeName(f.value), null, 0);
    }

    private String typeName(ProtoTypes.Value v) {
        if (v == ProtoTypes.TIMESTAMP) {
            return use(TIMESTAMP);
        }
        if (v == ProtoTypes.DURATION) {
            return use(DURATION);
        }
        if (v instanceof ProtoTypes.EnumValue e) {
            return enumName(e.type);
        }
        if (v instanceof ProtoTypes.MessageValue m) {
            return messageName(m.declared);
        }
        return switch (v.descriptorType) {
            case ProtoTypes.T_BOOL -> "bool";
            case ProtoTypes.T_INT32 -> "int32";
            case ProtoTypes.T_INT64 -> "int64";
            case ProtoTypes.T_FLOAT -> "float";
            case ProtoTypes.T_DOUBLE -> "double";
            case ProtoTypes.T_BYTES -> "bytes";
            default -> "string";
        };
    }

    /** The full name of the gRPC service: {@code package.Service}. */
    public String fullServiceName() {
        return qualified(serviceName);
    }

    /** The rpcs by name. */
    public Map<String, Rpc> rpcs() {
        return Collections.unmodifiableMap(rpcs);
    }

    /** The rpc called {@code name}, or {@code null} when the interface has none by that name over gRPC. */
    public Rpc rpc(String name) {
        return rpcs.get(name);
    }

    /** What protobuf cannot express here, one sentence each (those methods are not in the service). */
    public List<String> problems() {
        return Collections.unmodifiableList(problems);
    }

    /** The full name of the message carrying a declared exception's fields, or {@code null}. */
    public String detailMessage(String exceptionClass) {
        return details.get(exceptionClass);
    }

    /** The file's name in a descriptor set: the package as directories, then the service. */
    public String fileName() {
        return (packageName.isEmpty() ? "" : packageName.replace('.', '/') + "/") + serviceName + ".proto";
    }

    /** The {@code .proto} file: what the provider reads and writes, for {@code protoc} or a loader. */
    public String proto() {
        StringBuilder b = new StringBuilder();
        b.append("// Derived by XRpc from ")
                .append(service.getName())
                .append(".\n")
                .append("// Fields are numbered in declaration order: add new ones at the end (docs/GRPC.md).\n");
        b.append("syntax = \"proto3\";\n\n");
        if (!packageName.isEmpty()) {
            b.append("package ").append(packageName).append(";\n\n");
        }
        for (String i : imports) {
            b.append("import \"").append(i).append("\";\n");
        }
        if (!imports.isEmpty()) {
            b.append('\n');
        }
        if (!problems.isEmpty()) {
            b.append("// Not callable over gRPC (they are over JSON and XRpc's binary protocol):\n");
            for (String p : problems) {
                b.append("//   ").append(p.replace('\n', ' ')).append('\n');
            }
            b.append('\n');
        }
        b.append("service ").append(serviceName).append(" {\n");
        for (Rpc r : rpcs.values()) {
            b.append("  rpc ")
                    .append(r.name())
                    .append(" (")
                    .append(r.clientStreaming() ? "stream " : "")
                    .append(r.input())
                    .append(") returns (")
                    .append(r.serverStreaming() ? "stream " : "")
                    .append(r.output())
                    .append(");\n");
        }
        b.append("}\n");
        Map<String, String> enumValueNames = enumValueNames();
        for (MessageDef m : messages.values()) {
            b.append("\n// ").append(m.source()).append('\n');
            b.append("message ").append(m.name()).append(" {\n");
            for (FieldLine f : m.fields()) {
                b.append("  ");
                if ("map".equals(f.label())) {
                    b.append("map<")
                            .append(f.mapKey())
                            .append(", ")
                            .append(f.typeName())
                            .append("> ");
                } else {
                    if (!f.label().isEmpty()) {
                        b.append(f.label()).append(' ');
                    }
                    b.append(f.typeName()).append(' ');
                }
                b.append(f.name()).append(" = ").append(f.number()).append(";\n");
            }
            b.append("}\n");
        }
        for (EnumDef e : enums.values()) {
            b.append("\n// ").append(e.source()).append(", by ordinal: add constants at the end\n");
            b.append("enum ").append(e.name()).append(" {\n");
            for (int i = 0; i < e.values().size(); i++) {
                b.append("  ")
                        .append(enumValueNames.get(e.name() + "." + e.values().get(i)))
                        .append(" = ")
                        .append(i)
                        .append(";\n");
            }
            b.append("}\n");
        }
        return b.toString();
    }

    /**
     * Enum value names as the file states them: a value's Java name, or, where two enums of the
     * file share one (protobuf scopes values in the package), prefixed by its enum's name.
     */
    private Map<String, String> enumValueNames() {
        Map<String, Integer> uses = new HashMap<>();
        for (EnumDef e : enums.values()) {
            for (String v : e.values()) {
                uses.merge(v, 1, Integer::sum);
            }
        }
        Map<String, String> out = new HashMap<>();
        for (EnumDef e : enums.values()) {
            boolean clash = false;
            for (String v : e.values()) {
                clash |= uses.get(v) > 1 || taken.contains(v);
            }
            String prefix = clash ? upperSnake(e.name()) + "_" : "";
            for (String v : e.values()) {
                out.put(e.name() + "." + v, prefix + v);
            }
        }
        return out;
    }

    private static String upperSnake(String camel) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && camel.charAt(i - 1) != '_') {
                b.append('_');
            }
            b.append(Character.toUpperCase(c));
        }
        return b.toString().toUpperCase(Locale.ROOT);
    }

    // ---------------------------------------------------------------- descriptors

    /** The file as a serialized {@code google.protobuf.FileDescriptorProto}, for server reflection. */
    public byte[] fileDescriptor() {
        ProtoWriter w = new ProtoWriter();
        w.tag(1, ProtoWriter.LEN);
        w.string(fileName());
        if (!packageName.isEmpty()) {
            w.tag(2, ProtoWriter.LEN);
            w.string(packageName);
        }
        for (String i : imports) {
            w.tag(3, ProtoWriter.LEN);
            w.string(i);
        }
        for (MessageDef m : messages.values()) {
            w.tag(4, ProtoWriter.LEN);
            int mark = w.beginLen();
            message(w, m.name(), m.fields());
            w.endLen(mark);
        }
        Map<String, String> valueNames = enumValueNames();
        for (EnumDef e : enums.values()) {
            w.tag(5, ProtoWriter.LEN);
            int mark = w.beginLen();
            w.tag(1, ProtoWriter.LEN);
            w.string(e.name());
            for (int i = 0; i < e.values().size(); i++) {
                w.tag(2, ProtoWriter.LEN);
                int v = w.beginLen();
                w.tag(1, ProtoWriter.LEN);
                w.string(valueNames.get(e.name() + "." + e.values().get(i)));
                w.tag(2, ProtoWriter.VARINT);
                w.varint32(i);
                w.endLen(v);
            }
            w.endLen(mark);
        }
        w.tag(6, ProtoWriter.LEN);
        int s = w.beginLen();
        w.tag(1, ProtoWriter.LEN);
        w.string(serviceName);
        for (Rpc r : rpcs.values()) {
            w.tag(2, ProtoWriter.LEN);
            int m = w.beginLen();
            w.tag(1, ProtoWriter.LEN);
            w.string(r.name());
            w.tag(2, ProtoWriter.LEN);
            w.string(typeRef(r.input()));
            w.tag(3, ProtoWriter.LEN);
            w.string(typeRef(r.output()));
            if (r.clientStreaming()) {
                w.tag(5, ProtoWriter.VARINT);
                w.varint32(1);
            }
            if (r.serverStreaming()) {
                w.tag(6, ProtoWriter.VARINT);
                w.varint32(1);
            }
            w.endLen(m);
        }
        w.endLen(s);
        w.tag(12, ProtoWriter.LEN);
        w.string("proto3");
        return w.toByteArray();
    }

    private String typeRef(String name) {
        return name.startsWith("google.protobuf.") ? "." + name : "." + qualified(name);
    }

    /** A DescriptorProto's fields (without its length). */
    private void message(ProtoWriter w, String name, List<FieldLine> fields) {
        w.tag(1, ProtoWriter.LEN);
        w.string(name);
        int oneofs = 0;
        for (FieldLine f : fields) {
            w.tag(2, ProtoWriter.LEN);
            int mark = w.beginLen();
            boolean map = "map".equals(f.label());
            String entry = Character.toUpperCase(f.name().charAt(0)) + f.name().substring(1) + "Entry";
            field(
                    w,
                    f.name(),
                    f.number(),
                    map || "repeated".equals(f.label()) ? 3 : 1,
                    map ? ProtoTypes.T_MESSAGE : f.type(),
                    map
                            ? "." + qualified(name) + "." + entry
                            : f.type() >= ProtoTypes.T_MESSAGE && f.type() != ProtoTypes.T_BYTES
                                    ? typeRef(f.typeName())
                                    : null,
                    "optional".equals(f.label()) ? oneofs++ : -1);
            w.endLen(mark);
            if (map) {
                w.tag(3, ProtoWriter.LEN); // nested_type: the map's entry
                int e = w.beginLen();
                w.tag(1, ProtoWriter.LEN);
                w.string(entry);
                w.tag(2, ProtoWriter.LEN);
                int k = w.beginLen();
                field(w, "key", 1, 1, f.mapKeyType(), null, -1);
                w.endLen(k);
                w.tag(2, ProtoWriter.LEN);
                int v = w.beginLen();
                field(
                        w,
                        "value",
                        2,
                        1,
                        f.type(),
                        f.type() >= ProtoTypes.T_MESSAGE && f.type() != ProtoTypes.T_BYTES
                                ? typeRef(f.typeName())
                                : null,
                        -1);
                w.endLen(v);
                w.tag(7, ProtoWriter.LEN); // options: map_entry = true
                int o = w.beginLen();
                w.tag(7, ProtoWriter.VARINT);
                w.varint32(1);
                w.endLen(o);
                w.endLen(e);
            }
        }
        for (FieldLine f : fields) {
            if ("optional".equals(f.label())) {
                w.tag(8, ProtoWriter.LEN); // the synthetic oneof of a proto3 optional field
                int o = w.beginLen();
                w.tag(1, ProtoWriter.LEN);
                w.string("_" + f.name());
                w.endLen(o);
            }
        }
    }

    private static void field(ProtoWriter w, String name, int number, int label, int type, String typeName, int oneof) {
        w.tag(1, ProtoWriter.LEN);
        w.string(name);
        w.tag(3, ProtoWriter.VARINT);
        w.varint32(number);
        w.tag(4, ProtoWriter.VARINT);
        w.varint32(label);
        w.tag(5, ProtoWriter.VARINT);
        w.varint32(type);
        if (typeName != null) {
            w.tag(6, ProtoWriter.LEN);
            w.string(typeName);
        }
        if (oneof >= 0) {
            w.tag(9, ProtoWriter.VARINT);
            w.varint32(oneof);
        }
        w.tag(10, ProtoWriter.LEN);
        w.string(name); // json_name: the Java name, as XRpc's JSON writes it
        if (oneof >= 0) {
            w.tag(17, ProtoWriter.VARINT);
            w.varint32(1);
        }
    }

    // ---------------------------------------------------------------- errors

    /**
     * A gRPC status's details ({@code google.rpc.Status}, sent as {@code grpc-status-details-bin}):
     * a {@code google.rpc.ErrorInfo} whose reason is the exception's simple name, domain
     * {@code xrpc} and metadata its class, and, for an exception this contract describes, its
     * carried fields as the message {@link #detailMessage} names, packed in a
     * {@code google.protobuf.Any}.
     *
     * @param carried the {@code protobuf} serializer's bytes of the exception's
     *                {@code ExceptionValue}, or {@code null}
     */
    public byte[] statusDetails(int code, String message, String exceptionClass, byte[] carried) {
        byte[] all = details(code, message, exceptionClass, carried);
        // Trailers must fit the peer's header list (8 KiB is common): the fields go first if they would not.
        return all.length <= MAX_DETAILS || carried == null ? all : details(code, message, exceptionClass, null);
    }

    /** The most bytes of {@code grpc-status-details-bin} sent (before base64), so that trailers fit 8 KiB. */
    static final int MAX_DETAILS = 3 * 1024;

    private byte[] details(int code, String message, String exceptionClass, byte[] carried) {
        if (message != null && message.length() > 1000) {
            message = message.substring(0, 1000);
        }
        ProtoWriter w = new ProtoWriter();
        if (code != 0) {
            w.tag(1, ProtoWriter.VARINT);
            w.varint32(code);
        }
        if (message != null && !message.isEmpty()) {
            w.tag(2, ProtoWriter.LEN);
            w.string(message);
        }
        if (exceptionClass != null) {
            w.tag(3, ProtoWriter.LEN);
            int any = w.beginLen();
            w.tag(1, ProtoWriter.LEN);
            w.string("type.googleapis.com/google.rpc.ErrorInfo");
            w.tag(2, ProtoWriter.LEN);
            int info = w.beginLen();
            w.tag(1, ProtoWriter.LEN);
            w.string(exceptionClass.substring(
                    Math.max(exceptionClass.lastIndexOf('.'), exceptionClass.lastIndexOf('$')) + 1));
            w.tag(2, ProtoWriter.LEN);
            w.string("xrpc");
            w.tag(3, ProtoWriter.LEN);
            int entry = w.beginLen();
            w.tag(1, ProtoWriter.LEN);
            w.string("class");
            w.tag(2, ProtoWriter.LEN);
            w.string(exceptionClass);
            w.endLen(entry);
            w.endLen(info);
            w.endLen(any);
            String detail = details.get(exceptionClass);
            byte[] fields = detail == null || carried == null ? null : fieldValues(carried);
            if (fields != null) {
                w.tag(3, ProtoWriter.LEN);
                int a = w.beginLen();
                w.tag(1, ProtoWriter.LEN);
                w.string("type.googleapis.com/" + detail);
                w.tag(2, ProtoWriter.LEN);
                w.bytes(fields);
                w.endLen(a);
            }
        }
        return w.toByteArray();
    }

    /** Field 4 ({@code fieldValues}) of an {@code ExceptionValue} as the protobuf serializer writes it; null if absent or unreadable. */
    private static byte[] fieldValues(byte[] carried) {
        io.xrpc.serialize.ReadGuard guard = new io.xrpc.serialize.ReadGuard(ReadLimits.defaults());
        guard.begin(io.xrpc.serialize.Serializer.NO_DEADLINE);
        ProtoReader r = new ProtoReader(java.nio.ByteBuffer.wrap(carried), guard);
        try {
            while (!r.atEnd()) {
                int tag = r.tag();
                if (tag == (4 << 3 | ProtoWriter.LEN)) {
                    return r.bytes("fieldValues");
                }
                r.skip(tag);
            }
        } catch (java.io.IOException | RuntimeException unreadable) {
            return null;
        }
        return null;
    }

    // ---------------------------------------------------------------- reflection

    /** The well-known files a derived contract may import, by file name. */
    private static final Map<String, byte[]> WELL_KNOWN = Map.of(
            "google/protobuf/empty.proto", wellKnown("google/protobuf/empty.proto", "Empty"),
            "google/protobuf/timestamp.proto",
                    wellKnown("google/protobuf/timestamp.proto", "Timestamp", "seconds", "nanos"),
            "google/protobuf/duration.proto",
                    wellKnown("google/protobuf/duration.proto", "Duration", "seconds", "nanos"));

    /** A {@code FileDescriptorProto} of one message of {@code int64 seconds = 1; int32 nanos = 2;} or none. */
    private static byte[] wellKnown(String file, String message, String... fields) {
        ProtoWriter w = new ProtoWriter();
        w.tag(1, ProtoWriter.LEN);
        w.string(file);
        w.tag(2, ProtoWriter.LEN);
        w.string("google.protobuf");
        w.tag(4, ProtoWriter.LEN);
        int m = w.beginLen();
        w.tag(1, ProtoWriter.LEN);
        w.string(message);
        for (int i = 0; i < fields.length; i++) {
            w.tag(2, ProtoWriter.LEN);
            int f = w.beginLen();
            field(w, fields[i], i + 1, 1, i == 0 ? ProtoTypes.T_INT64 : ProtoTypes.T_INT32, null, -1);
            w.endLen(f);
        }
        w.endLen(m);
        w.tag(12, ProtoWriter.LEN);
        w.string("proto3");
        return w.toByteArray();
    }

    /**
     * The serialized {@code FileDescriptorProto} of a well-known file a derived contract imports
     * ({@code google/protobuf/empty.proto}, {@code timestamp.proto}, {@code duration.proto}), or
     * {@code null}.
     */
    public static byte[] wellKnownFile(String name) {
        byte[] b = WELL_KNOWN.get(name);
        return b == null ? null : b.clone();
    }

    /**
     * Whether {@code symbol} (a full name: the service, one of its methods, a message or an enum)
     * is defined in this contract's file.
     */
    public boolean defines(String symbol) {
        String service = fullServiceName();
        if (symbol.equals(service)) {
            return true;
        }
        if (symbol.startsWith(service + ".") && rpcs.containsKey(symbol.substring(service.length() + 1))) {
            return true;
        }
        String prefix = packageName.isEmpty() ? "" : packageName + ".";
        if (!symbol.startsWith(prefix)) {
            return false;
        }
        String local = symbol.substring(prefix.length());
        return messages.containsKey(local) || enums.containsKey(local);
    }
}
