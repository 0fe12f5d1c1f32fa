package io.xrpc.testing;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;

/**
 * A serializer as an application would write one through the SPI: Jackson 3 (the JSON library
 * Spring Boot 4 brings), under the name {@code jackson} and the wire id 32, the first one left to
 * applications. It knows nothing of XRpc's internals: each argument or result is written with its
 * runtime class and read as an {@code Object} through Jackson's default typing, whose class names
 * pass the allow-list before Jackson loads anything, then converted to the declared type. It keeps
 * to the reading contract the ways JSON allows: nesting within {@link ReadLimits#maxDepth()}, no
 * bytes after the value, and nothing outside the allow-list constructed.
 *
 * <p>Used by the type matrix and the declared-exception tests: before, a custom serializer like
 * this one silently lost a declared exception's fields, which travelled as an {@code Object[]}.
 */
public class JacksonSerializerProvider implements SerializerProvider {
    public static final String NAME = "jackson";
    public static final byte ID = 32;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new JacksonSerializer(NAME, ID, true, allowList, limits);
    }

    /**
     * {@code jackson-plain} (id 33): the simplest JSON serializer there is, and the one the issue's
     * user wrote: no type ids, every value read as its declared class. It carries only what its
     * declared types say (a {@code List} comes back as a list of maps), so it runs through the
     * declared-exception tests, not the type matrix: it is how a field typed {@code Object[]} was
     * lost.
     */
    public static final class Plain extends JacksonSerializerProvider {
        @Override
        public String name() {
            return "jackson-plain";
        }

        @Override
        public Serializer create(ClassAllowList allowList, ReadLimits limits) {
            return new JacksonSerializer("jackson-plain", (byte) 33, false, allowList, limits);
        }
    }

    static final class JacksonSerializer implements Serializer {
        private final String name;
        private final byte id;
        /** Whether values carry their classes (Jackson's default typing), or are read as declared. */
        private final boolean typed;

        private final JsonMapper mapper;
        private final ObjectWriter writer;
        private final ObjectReader reader;

        JacksonSerializer(String name, byte id, boolean typed, ClassAllowList allowList, ReadLimits limits) {
            this.name = name;
            this.id = id;
            this.typed = typed;
            JsonFactory json = JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(limits.maxDepth())
                            .build())
                    .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
                    .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
                    .build();
            JsonMapper.Builder b = JsonMapper.builder(json);
            if (typed) {
                b.activateDefaultTyping(new AllowListValidator(allowList), DefaultTyping.NON_FINAL);
            }
            this.mapper = b.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                    .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // values are read one by one; see expect()
                    .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .disable(DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                    .enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID)
                    .enable(MapperFeature.ALLOW_FINAL_FIELDS_AS_MUTATORS)
                    .build();
            this.writer = typed ? mapper.writerFor(Object.class) : mapper.writer();
            this.reader = mapper.readerFor(Object.class);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public byte id() {
            return id;
        }

        @Override
        public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
            try {
                writer.writeValue(out, arguments);
            } catch (JacksonException e) {
                throw new SerializationException(name + " cannot write the arguments: " + e.getOriginalMessage(), e);
            }
        }

        @Override
        public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos)
                throws IOException {
            try (JsonParser p = mapper.createParser(in)) {
                if (p.nextToken() != JsonToken.START_ARRAY) {
                    throw new SerializationException("jackson: arguments are not a JSON array");
                }
                if (typed) {
                    // The array itself went out typed as Object[]: its type id comes first.
                    expect(
                            p.nextToken() == JsonToken.VALUE_STRING && "[Ljava.lang.Object;".equals(p.getString()),
                            "arguments do not start with their array type");
                    expect(p.nextToken() == JsonToken.START_ARRAY, "arguments are not an array");
                }
                Object[] values = new Object[parameterTypes.length];
                for (int i = 0; i < parameterTypes.length; i++) {
                    expect(p.nextToken() != JsonToken.END_ARRAY, "fewer arguments than " + parameterTypes.length);
                    values[i] = read(p, parameterTypes[i]);
                }
                expect(p.nextToken() == JsonToken.END_ARRAY, "more arguments than " + parameterTypes.length);
                if (typed) {
                    expect(p.nextToken() == JsonToken.END_ARRAY, "bytes after the arguments");
                }
                expect(p.nextToken() == null, "bytes after the arguments");
                return values;
            } catch (JacksonException e) {
                throw translate(e);
            }
        }

        @Override
        public void writeResult(Object value, OutputStream out) throws IOException {
            try {
                writer.writeValue(out, value);
            } catch (JacksonException e) {
                throw new SerializationException(
                        name + " cannot write a " + value.getClass().getName() + ": " + e.getOriginalMessage(), e);
            }
        }

        @Override
        public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
            try (JsonParser p = mapper.createParser(in)) {
                p.nextToken();
                Object value = read(p, type);
                expect(p.nextToken() == null, "bytes after the result");
                return value;
            } catch (JacksonException e) {
                throw translate(e);
            }
        }

        private Object read(JsonParser p, Class<?> type) throws SerializationException {
            return typed
                    ? as(reader.readValue(p), type)
                    : mapper.readerFor(type).readValue(p);
        }

        /** A value read as Object, as the declared type (JSON has one kind of number, one of text). */
        private Object as(Object value, Class<?> type) throws SerializationException {
            if (value == null || type == Object.class || type.isInstance(value)) {
                return value;
            }
            if (type == Optional.class) {
                return Optional.of(value); // written as its content, type id and all
            }
            JavaType target = mapper.constructType(type);
            if (target.isPrimitive()
                    || Number.class.isAssignableFrom(target.getRawClass())
                    || target.getRawClass() == Character.class) {
                return mapper.convertValue(value, target);
            }
            throw new SerializationException(
                    "jackson read a " + value.getClass().getName() + " where a " + type.getName() + " was declared");
        }

        private static void expect(boolean ok, String what) throws SerializationException {
            if (!ok) {
                throw new SerializationException("jackson: " + what);
            }
        }

        private static IOException translate(JacksonException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ClassNotAllowedException c) {
                    throw c;
                }
            }
            if (e instanceof StreamConstraintsException) {
                throw new PayloadLimitException("jackson: " + e.getOriginalMessage());
            }
            return new SerializationException("jackson: " + e.getOriginalMessage(), e);
        }
    }

    /** Lets Jackson resolve a type id only to a class the allow-list allows, before it loads it. */
    static final class AllowListValidator extends PolymorphicTypeValidator.Base {
        private static final long serialVersionUID = 1L;
        private final transient ClassAllowList allowList;

        AllowListValidator(ClassAllowList allowList) {
            this.allowList = allowList;
        }

        @Override
        public Validity validateSubClassName(DatabindContext ctxt, JavaType baseType, String subClassName) {
            // Jackson reads List.of and its kind into the JDK's unmodifiable wrappers, which
            // then go out under those names: it makes them itself, from an ArrayList or a HashMap.
            if (allowList.isAllowed(subClassName) || subClassName.startsWith("java.util.Collections$Unmodifiable")) {
                return Validity.ALLOWED;
            }
            throw new ClassNotAllowedException(subClassName);
        }

        @Override
        public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
            return Validity.ALLOWED; // its name passed validateSubClassName
        }
    }
}
