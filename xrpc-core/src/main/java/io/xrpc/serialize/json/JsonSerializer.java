package io.xrpc.serialize.json;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import io.xrpc.internal.ByteBufferInputStream;
import io.xrpc.internal.Texts;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.jdk.NumberDeserializers;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.deser.std.StdScalarDeserializer;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;
import tools.jackson.databind.module.SimpleModule;

/**
 * {@code json} (wire id 5): arguments and results as plain JSON, read as the types the method
 * declares. It is the body of generic invocation ({@code RpcClient.generic}): a caller without the
 * service's classes sends JSON-shaped values (maps, lists, strings, numbers, booleans, null), the
 * provider reads them as its declared parameter types (generic ones included, so a
 * {@code List<Order>} arrives as orders) and its result goes back as JSON, which such a caller
 * reads as maps and lists. A typed reference may use it too, as it would any serializer.
 *
 * <p>Values carry no class names, so what gets built is decided by the reader's declared types
 * alone. On top of that:
 * <ul>
 *   <li>every class Jackson builds as a bean is checked against the {@link ClassAllowList} each
 *       time (the list may grow while the server runs), so a generic call constructs nothing a typed
 *       call could not; type ids ({@code @JsonTypeInfo}) are refused before any class is loaded;</li>
 *   <li>{@link ReadLimits#maxDepth()} bounds nesting, and a message may hold at most
 *       {@link ReadLimits#maxObjects()} tokens (names, values and brackets, counted by Jackson as it
 *       parses), so it builds at most that many objects;</li>
 *   <li>the call's deadline is looked at before each argument and each bean;</li>
 *   <li>numbers cannot grow past their text: a whole-number type ({@code int}, {@code long},
 *       {@code BigInteger}, ...) takes no fraction or exponent, so {@code 1E+100000} is not expanded
 *       into a 41 KB {@code BigInteger}; a number has at most {@value #MAX_NUMBER_DIGITS} digits
 *       (Jackson's limit) and a {@code BigDecimal} a scale of at most &plusmn;{@value #MAX_DECIMAL_SCALE},
 *       so that no later arithmetic on it expands it either;</li>
 *   <li>a property the declared type does not have, a {@code null} for a primitive and bytes after
 *       the value all fail, naming what was wrong.</li>
 * </ul>
 * Objects are read and written through their fields (as Kryo, Hessian and Protostuff do), records
 * through their components; a class Jackson cannot build (no no-argument constructor, an abstract
 * type: JSON names no subclass) is named at export or reference time by {@link #cannotCarry}, and
 * an {@code Object} declared where a value goes is read as JSON's own shapes (maps, lists).
 */
final class JsonSerializer implements Serializer {
    /** The name in configuration. */
    public static final String NAME = "json";
    /** The id in the frame header. */
    public static final byte ID = 5;

    private static final String DEADLINE = "xrpc.deadline";
    /** The most digits a number may have (Jackson's own default, stated here so it cannot drift). */
    static final int MAX_NUMBER_DIGITS = 1000;
    /** The largest scale, either sign, of a {@code BigDecimal}: {@code 1E-999999999 + 1} would have a billion digits. */
    static final int MAX_DECIMAL_SCALE = 1000;

    private final JsonMapper mapper;
    private final ObjectReader reader;
    /** A result is one whole value: bytes after it fail. */
    private final ObjectReader resultReader;

    private final ObjectWriter writer;

    JsonSerializer(ClassAllowList allowList, ReadLimits limits) {
        JsonFactory json = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(limits.maxDepth())
                        .maxTokenCount(limits.maxObjects())
                        .maxNumberLength(MAX_NUMBER_DIGITS)
                        .build())
                .streamWriteConstraints(StreamWriteConstraints.builder()
                        .maxNestingDepth(limits.maxDepth())
                        .build())
                .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
                .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
                .build();
        SimpleModule guard = new SimpleModule("xrpc-allow-list");
        guard.setDeserializerModifier(new AllowListModifier(allowList));
        guard.addDeserializer(BigDecimal.class, new BoundedBigDecimal());
        this.mapper = JsonMapper.builder(json)
                .addModule(guard)
                .polymorphicTypeValidator(NoTypeIds.INSTANCE)
                .changeDefaultVisibility(v -> v.withVisibility(PropertyAccessor.GETTER, JsonAutoDetect.Visibility.NONE)
                        .withVisibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
                        .withVisibility(PropertyAccessor.SETTER, JsonAutoDetect.Visibility.NONE)
                        .withVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY))
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                // 1E+100000 read into a BigInteger would be expanded to 41 KB of magnitude
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // arguments: read one by one, then checked
                .disable(DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID)
                .build();
        this.reader = mapper.reader();
        this.resultReader = reader.with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.writer = mapper.writer();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        try {
            writer.writeValue(out, arguments);
        } catch (JacksonException e) {
            throw writeFailure("the arguments", e);
        }
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        try {
            writer.writeValue(out, value);
        } catch (JacksonException e) {
            throw writeFailure("a " + value.getClass().getName(), e);
        }
    }

    /** What could not be written and why; a value that holds itself (JSON is a tree) named as the likely cycle. */
    private static SerializationException writeFailure(String what, JacksonException e) {
        boolean deep = hasCause(e, StreamConstraintsException.class)
                || String.valueOf(e.getOriginalMessage()).contains("self-reference");
        return new SerializationException(
                "json cannot write " + what + ": " + e.getOriginalMessage()
                        + (deep ? " (most likely a cycle: JSON holds a tree of values, not a graph)" : ""),
                e);
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (int i = 0; t != null && i < 32; t = t.getCause(), i++) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        return readArguments(in, parameterTypes, parameterTypes, deadlineNanos);
    }

    @Override
    public Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, Type[] genericTypes, long deadlineNanos)
            throws IOException {
        return readArguments(new ByteBufferInputStream(in), parameterTypes, genericTypes, deadlineNanos);
    }

    private Object[] readArguments(InputStream in, Class<?>[] parameterTypes, Type[] genericTypes, long deadlineNanos)
            throws IOException {
        ObjectReader r = reader.withAttribute(DEADLINE, deadlineNanos);
        try (JsonParser p = r.createParser(in)) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new SerializationException("json: the arguments are not a JSON array (expected: [ ... ] with "
                        + parameterTypes.length + " values)");
            }
            Object[] values = new Object[parameterTypes.length];
            for (int i = 0; i < parameterTypes.length; i++) {
                checkDeadline(deadlineNanos);
                if (p.nextToken() == JsonToken.END_ARRAY) {
                    throw new SerializationException(
                            "json: " + i + " arguments where the method takes " + parameterTypes.length);
                }
                JavaType type = mapper.constructType(genericTypes[i]);
                try {
                    values[i] = r.forType(type).readValue(p);
                } catch (JacksonException e) {
                    throw translate("argument " + i + " (" + type.toCanonical() + ")", e);
                }
            }
            if (p.nextToken() != JsonToken.END_ARRAY) {
                throw new SerializationException(
                        "json: more arguments than the " + parameterTypes.length + " the method takes");
            }
            if (p.nextToken() != null) {
                throw new SerializationException("json: bytes after the arguments");
            }
            return values;
        } catch (JacksonException e) {
            throw translate("the arguments", e);
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        return readResult(in, (Type) type, deadlineNanos);
    }

    @Override
    public Object readResult(ByteBuffer in, Class<?> type, Type genericType, long deadlineNanos) throws IOException {
        return readResult(new ByteBufferInputStream(in), genericType, deadlineNanos);
    }

    private Object readResult(InputStream in, Type type, long deadlineNanos) throws IOException {
        checkDeadline(deadlineNanos);
        JavaType t = mapper.constructType(type);
        try {
            return resultReader
                    .withAttribute(DEADLINE, deadlineNanos)
                    .forType(t)
                    .readValue(in);
        } catch (JacksonException e) {
            throw translate("a " + t.toCanonical(), e);
        }
    }

    /**
     * Why Jackson, reading by declared type, cannot build {@code type}: an abstract class or an
     * interface other than a collection or map (JSON does not say which class to build), or a
     * class with neither a no-argument constructor nor record components.
     */
    @Override
    public String cannotCarry(Class<?> type) {
        if (type.isPrimitive()
                || type.isArray()
                || Enum.class.isAssignableFrom(type)
                || type.isRecord()
                || Collection.class.isAssignableFrom(type)
                || Map.class.isAssignableFrom(type)
                || type.getName().startsWith("java.")
                || Throwable.class.isAssignableFrom(type)
                || type == ExceptionValue.class) {
            return null;
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            return "json carries no class names and cannot tell which class to build for "
                    + (type.isInterface() ? "interface " : "abstract class ") + type.getName();
        }
        try {
            type.getDeclaredConstructor();
            return null;
        } catch (NoSuchMethodException e) {
            return "json cannot build " + type.getName() + ": it has no no-argument constructor and is not a record";
        }
    }

    private static void checkDeadline(long deadlineNanos) {
        if (deadlineNanos != NO_DEADLINE && System.nanoTime() - deadlineNanos > 0) {
            throw new ReadDeadlineException("the call's deadline passed while its json payload was read");
        }
    }

    /** XRpc's own refusals as themselves; Jackson's limits as {@link PayloadLimitException}; the rest named. */
    private static IOException translate(String reading, JacksonException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotAllowedException c) {
                throw c;
            }
            if (t instanceof PayloadLimitException p) {
                throw p;
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException limit) {
                throw new PayloadLimitException("json: " + limit.getOriginalMessage());
            }
        }
        if (e instanceof InvalidFormatException f
                && isWholeNumber(f.getTargetType())
                && String.valueOf(e.getOriginalMessage()).startsWith("Cannot coerce Floating-point")) {
            String where = e.getPathReference();
            return new SerializationException("json: cannot read " + reading + ": a number with a fraction or an"
                    + " exponent, where " + f.getTargetType().getName() + " takes whole numbers written as digits only"
                    + (where == null || where.isEmpty() ? "" : " (at " + where + ")"));
        }
        if (e.getCause() instanceof StackOverflowError) {
            return new SerializationException("json: cannot read " + reading + ": values nest too deeply");
        }
        String where = e.getPathReference();
        return new SerializationException(
                "json: cannot read " + reading + ": " + e.getOriginalMessage()
                        + (where == null || where.isEmpty() ? "" : " (at " + where + ")"),
                e);
    }

    private static boolean isWholeNumber(Class<?> t) {
        return t == int.class
                || t == long.class
                || t == short.class
                || t == byte.class
                || t == Integer.class
                || t == Long.class
                || t == Short.class
                || t == Byte.class
                || t == BigInteger.class
                || t == AtomicInteger.class
                || t == AtomicLong.class;
    }

    /** Jackson's own reading of a {@code BigDecimal}, then its scale bounded by {@link #MAX_DECIMAL_SCALE}. */
    private static final class BoundedBigDecimal extends StdScalarDeserializer<BigDecimal> {
        BoundedBigDecimal() {
            super(BigDecimal.class);
        }

        @Override
        public BigDecimal deserialize(JsonParser p, DeserializationContext ctxt) {
            BigDecimal v = NumberDeserializers.BigDecimalDeserializer.instance.deserialize(p, ctxt);
            if (v != null && Math.abs(v.scale()) > MAX_DECIMAL_SCALE) {
                throw new PayloadLimitException("json: the BigDecimal " + Texts.cut(v.toString(), 40)
                        + " has a scale of " + v.scale() + " (at most " + MAX_DECIMAL_SCALE + " either way)");
            }
            return v;
        }
    }

    /** Wraps the deserializer of every bean class, so that its class is checked whenever one is built. */
    private static final class AllowListModifier extends ValueDeserializerModifier {
        private static final long serialVersionUID = 1L;
        private final transient ClassAllowList allowList;

        AllowListModifier(ClassAllowList allowList) {
            this.allowList = allowList;
        }

        @Override
        public ValueDeserializer<?> modifyDeserializer(
                DeserializationConfig config, BeanDescription.Supplier bean, ValueDeserializer<?> deserializer) {
            Class<?> c = bean.getBeanClass();
            return c == ExceptionValue.class ? deserializer : new Checked(deserializer, c, allowList);
        }
    }

    /** A bean's deserializer that first checks its class against the allow-list, and the deadline. */
    private static final class Checked extends DelegatingDeserializer {
        private final Class<?> type;
        private final ClassAllowList allowList;

        Checked(ValueDeserializer<?> delegate, Class<?> type, ClassAllowList allowList) {
            super(delegate);
            this.type = type;
            this.allowList = allowList;
        }

        @Override
        protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> delegate) {
            return new Checked(delegate, type, allowList);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            check(ctxt);
            return super.deserialize(p, ctxt);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt, Object intoValue) {
            check(ctxt);
            return super.deserialize(p, ctxt, intoValue);
        }

        private void check(DatabindContext ctxt) {
            allowList.check(type.getName());
            if (ctxt.getAttribute(DEADLINE) instanceof Long deadline) {
                checkDeadline(deadline);
            }
        }
    }

    /**
     * Refuses every type id ({@code @JsonTypeInfo}), before any class is named or loaded: json
     * carries no class names, so a payload cannot choose what gets built, nor make Jackson load a
     * class (a generic id's type arguments are loaded before any check could see them).
     */
    private static final class NoTypeIds extends PolymorphicTypeValidator.Base {
        private static final long serialVersionUID = 1L;
        static final NoTypeIds INSTANCE = new NoTypeIds();

        @Override
        public Validity validateBaseType(DatabindContext ctxt, JavaType baseType) {
            return Validity.DENIED;
        }

        @Override
        public Validity validateSubClassName(DatabindContext ctxt, JavaType baseType, String subClassName) {
            throw new ClassNotAllowedException(subClassName);
        }

        @Override
        public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
            return Validity.DENIED;
        }
    }
}
