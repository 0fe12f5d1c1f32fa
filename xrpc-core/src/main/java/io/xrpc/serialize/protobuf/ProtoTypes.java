package io.xrpc.serialize.protobuf;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * How Java types travel as protocol buffers: the one mapping both the {@code protobuf} serializer
 * and the derived contract ({@link ProtoContract}) read, so that what the {@code .proto} says is
 * what the provider reads and writes.
 *
 * <ul>
 *   <li>An application's record or concrete class is a message; its fields (a record's components,
 *       or a class's non-static, non-transient fields, its superclasses' first) are numbered 1, 2,
 *       ... in declaration order, so a field added at the end keeps every number before it.</li>
 *   <li>{@code boolean}, {@code int} (and {@code short}, {@code byte}, {@code char}), {@code long},
 *       {@code float}, {@code double}, {@code String}, {@code byte[]} are proto3's scalars; a
 *       reference that may be {@code null} (a boxed number, a {@code String}, an enum) is an
 *       {@code optional} field, so that {@code null} and zero stay apart.</li>
 *   <li>An enum is a proto enum numbered by ordinal (add constants at the end).</li>
 *   <li>{@code Instant} and {@code Duration} are {@code google.protobuf.Timestamp} and
 *       {@code Duration}; {@code UUID}, {@code BigDecimal}, {@code BigInteger} and
 *       {@code LocalDate}, {@code LocalTime}, {@code LocalDateTime}, {@code OffsetDateTime},
 *       {@code ZonedDateTime} are strings in their {@code toString} form.</li>
 *   <li>A {@code List}, {@code Set}, {@code Collection} or array is a repeated field, a
 *       {@code Map} with string, integer or boolean keys a map field, {@code Optional<T>} a field
 *       with presence.</li>
 *   <li>Not expressible, and named: {@code Object}, an interface or abstract class (protobuf names
 *       no subclass), a collection inside a collection or map, a class without a no-argument
 *       constructor that is not a record, any other JDK class.</li>
 * </ul>
 */
final class ProtoTypes {
    /** FieldDescriptorProto.Type numbers. */
    static final int T_DOUBLE = 1;

    static final int T_FLOAT = 2;
    static final int T_INT64 = 3;
    static final int T_INT32 = 5;
    static final int T_BOOL = 8;
    static final int T_STRING = 9;
    static final int T_MESSAGE = 11;
    static final int T_BYTES = 12;
    static final int T_ENUM = 14;

    /** Characters a string-mapped value (a date, a UUID) may have; a number's digits are bounded as json bounds them. */
    static final int MAX_TEXT = 1000;

    /** A type protobuf cannot express, saying why. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String why) {
            super(why, null, false, false);
        }
    }

    private final ClassAllowList allowList;
    private final int maxDepth;
    /** By class, or by parameterized type for a generic class ({@code Page<User>}). */
    private final Map<Type, MessageValue> messages = new ConcurrentHashMap<>();

    private final Map<List<Type>, Fields> argumentMessages = new ConcurrentHashMap<>();

    ProtoTypes(ClassAllowList allowList, ReadLimits limits) {
        this.allowList = allowList;
        this.maxDepth = limits.maxDepth();
    }

    // ---------------------------------------------------------------- values

    /** How one Java value travels, without its tag. */
    abstract static class Value {
        final int wireType;
        final int descriptorType;

        Value(int wireType, int descriptorType) {
            this.wireType = wireType;
            this.descriptorType = descriptorType;
        }

        /** Writes the value (a length-delimited one with its length). */
        abstract void write(ProtoWriter w, Object v, int depth);

        abstract Object read(ProtoReader r) throws IOException;

        /** The value of a primitive field that is absent (and is left out when written). */
        Object zero() {
            return null;
        }

        boolean isZero(Object v) {
            return false;
        }

        /** A map entry's value when the entry holds none: protobuf's default for the type. */
        Object mapDefault() {
            return zero();
        }

        boolean packable() {
            return wireType != ProtoWriter.LEN;
        }

        /** Whether the type has presence as a message (never labelled {@code optional}). */
        boolean isMessage() {
            return descriptorType == T_MESSAGE;
        }
    }

    /** {@code int32} for {@code int}, {@code short}, {@code byte}, {@code char}, range-checked when read. */
    private static final class Int32 extends Value {
        final Class<?> type;
        final int min;
        final int max;

        Int32(Class<?> type, int min, int max) {
            super(ProtoWriter.VARINT, T_INT32);
            this.type = type;
            this.min = min;
            this.max = max;
        }

        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.varint32(v instanceof Character c ? c : ((Number) v).intValue());
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            int v = (int) r.varint();
            if (v < min || v > max) {
                throw new SerializationException(v + " does not fit a " + type.getSimpleName());
            }
            return type == Integer.class
                    ? (Object) v
                    : type == Short.class ? (Object) (short) v : type == Byte.class ? (Object) (byte) v : (char) v;
        }

        @Override
        Object zero() {
            return type == Integer.class
                    ? (Object) 0
                    : type == Short.class ? (Object) (short) 0 : type == Byte.class ? (Object) (byte) 0 : (char) 0;
        }

        @Override
        boolean isZero(Object v) {
            return v instanceof Character c ? c == 0 : ((Number) v).intValue() == 0;
        }
    }

    private static final Value INT32 = new Int32(Integer.class, Integer.MIN_VALUE, Integer.MAX_VALUE);
    private static final Value SHORT = new Int32(Short.class, Short.MIN_VALUE, Short.MAX_VALUE);
    private static final Value BYTE = new Int32(Byte.class, Byte.MIN_VALUE, Byte.MAX_VALUE);
    private static final Value CHAR = new Int32(Character.class, Character.MIN_VALUE, Character.MAX_VALUE);

    private static final Value INT64 = new Value(ProtoWriter.VARINT, T_INT64) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.varint(((Number) v).longValue());
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            return r.varint();
        }

        @Override
        Object zero() {
            return 0L;
        }

        @Override
        boolean isZero(Object v) {
            return ((Number) v).longValue() == 0;
        }
    };

    private static final Value BOOL = new Value(ProtoWriter.VARINT, T_BOOL) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.varint32((Boolean) v ? 1 : 0);
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            return r.varint() != 0;
        }

        @Override
        Object zero() {
            return false;
        }

        @Override
        boolean isZero(Object v) {
            return !(Boolean) v;
        }
    };

    private static final Value FLOAT = new Value(ProtoWriter.FIXED32, T_FLOAT) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.fixed32(Float.floatToRawIntBits(((Number) v).floatValue()));
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            return Float.intBitsToFloat(r.fixed32());
        }

        @Override
        Object zero() {
            return 0f;
        }

        @Override
        boolean isZero(Object v) {
            return Float.floatToRawIntBits((Float) v) == 0;
        }
    };

    private static final Value DOUBLE = new Value(ProtoWriter.FIXED64, T_DOUBLE) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.fixed64(Double.doubleToRawLongBits(((Number) v).doubleValue()));
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            return Double.longBitsToDouble(r.fixed64());
        }

        @Override
        Object zero() {
            return 0d;
        }

        @Override
        boolean isZero(Object v) {
            return Double.doubleToRawLongBits((Double) v) == 0;
        }
    };

    private static final Value STRING = new Value(ProtoWriter.LEN, T_STRING) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.string((String) v);
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            return r.string("a string");
        }

        @Override
        Object mapDefault() {
            return "";
        }
    };

    private static final Value BYTES = new Value(ProtoWriter.LEN, T_BYTES) {
        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.bytes((byte[]) v);
        }

        @Override
        Object read(ProtoReader r) {
            return r.bytes("bytes");
        }

        @Override
        Object mapDefault() {
            return new byte[0];
        }
    };

    /** A value carried as its {@code toString} form and parsed back. */
    private static final class Text extends Value {
        final Class<?> type;
        final Function<String, Object> parse;

        Text(Class<?> type, Function<String, Object> parse) {
            super(ProtoWriter.LEN, T_STRING);
            this.type = type;
            this.parse = parse;
        }

        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.string(v.toString());
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            String s = r.string("a " + type.getSimpleName());
            if (s.length() > MAX_TEXT) {
                throw new PayloadLimitException("a " + type.getSimpleName() + " of " + s.length()
                        + " characters is over the limit of " + MAX_TEXT);
            }
            try {
                return parse.apply(s);
            } catch (RuntimeException e) {
                throw new SerializationException("'" + s + "' is not a " + type.getName() + ": " + e.getMessage());
            }
        }
    }

    private static BigDecimal decimal(String s) {
        BigDecimal d = new BigDecimal(s);
        if (Math.abs((long) d.scale()) > MAX_TEXT) {
            throw new IllegalArgumentException("its scale " + d.scale() + " is beyond +-" + MAX_TEXT);
        }
        return d;
    }

    /** {@code google.protobuf.Timestamp} or {@code Duration}: seconds (1), nanos (2). */
    private static final class SecondsNanos extends Value {
        final boolean instant;

        SecondsNanos(boolean instant) {
            super(ProtoWriter.LEN, T_MESSAGE);
            this.instant = instant;
        }

        @Override
        void write(ProtoWriter w, Object v, int depth) {
            long seconds = instant ? ((Instant) v).getEpochSecond() : ((Duration) v).getSeconds();
            int nanos = instant ? ((Instant) v).getNano() : ((Duration) v).getNano();
            if (!instant && seconds < 0 && nanos > 0) { // protobuf: both share the sign
                seconds++;
                nanos -= 1_000_000_000;
            }
            int mark = w.beginLen();
            if (seconds != 0) {
                w.tag(1, ProtoWriter.VARINT);
                w.varint(seconds);
            }
            if (nanos != 0) {
                w.tag(2, ProtoWriter.VARINT);
                w.varint32(nanos);
            }
            w.endLen(mark);
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            int outer = r.pushLimit(instant ? "a Timestamp" : "a Duration");
            long seconds = 0;
            int nanos = 0;
            while (!r.atEnd()) {
                int tag = r.tag();
                if (tag == (1 << 3)) {
                    seconds = r.varint();
                } else if (tag == (2 << 3)) {
                    nanos = (int) r.varint();
                } else {
                    r.skip(tag);
                }
            }
            r.popLimit(outer);
            try {
                return instant ? Instant.ofEpochSecond(seconds, nanos) : Duration.ofSeconds(seconds, nanos);
            } catch (RuntimeException e) {
                throw new SerializationException(
                        (instant ? "Timestamp" : "Duration") + " " + seconds + "s " + nanos + "ns: " + e.getMessage());
            }
        }
    }

    static final Value TIMESTAMP = new SecondsNanos(true);
    static final Value DURATION = new SecondsNanos(false);

    /** A Java enum: its ordinal. */
    static final class EnumValue extends Value {
        final Class<?> type;
        final Object[] constants;

        EnumValue(Class<?> type) {
            super(ProtoWriter.VARINT, T_ENUM);
            this.type = type;
            this.constants = type.getEnumConstants();
        }

        @Override
        void write(ProtoWriter w, Object v, int depth) {
            w.varint32(((Enum<?>) v).ordinal());
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            long n = r.varint();
            if (n < 0 || n >= constants.length) {
                throw new SerializationException(
                        n + " is not a value of " + type.getName() + " (0 to " + (constants.length - 1) + ")");
            }
            return constants[(int) n];
        }

        @Override
        Object mapDefault() {
            return constants.length == 0 ? null : constants[0];
        }
    }

    private static final Map<Class<?>, Value> SCALARS = new HashMap<>();

    static {
        SCALARS.put(boolean.class, BOOL);
        SCALARS.put(Boolean.class, BOOL);
        SCALARS.put(int.class, INT32);
        SCALARS.put(Integer.class, INT32);
        SCALARS.put(short.class, SHORT);
        SCALARS.put(Short.class, SHORT);
        SCALARS.put(byte.class, BYTE);
        SCALARS.put(Byte.class, BYTE);
        SCALARS.put(char.class, CHAR);
        SCALARS.put(Character.class, CHAR);
        SCALARS.put(long.class, INT64);
        SCALARS.put(Long.class, INT64);
        SCALARS.put(float.class, FLOAT);
        SCALARS.put(Float.class, FLOAT);
        SCALARS.put(double.class, DOUBLE);
        SCALARS.put(Double.class, DOUBLE);
        SCALARS.put(String.class, STRING);
        SCALARS.put(byte[].class, BYTES);
        SCALARS.put(Instant.class, TIMESTAMP);
        SCALARS.put(Duration.class, DURATION);
        SCALARS.put(UUID.class, new Text(UUID.class, UUID::fromString));
        SCALARS.put(BigDecimal.class, new Text(BigDecimal.class, ProtoTypes::decimal));
        SCALARS.put(BigInteger.class, new Text(BigInteger.class, BigInteger::new));
        SCALARS.put(LocalDate.class, new Text(LocalDate.class, LocalDate::parse));
        SCALARS.put(LocalTime.class, new Text(LocalTime.class, LocalTime::parse));
        SCALARS.put(LocalDateTime.class, new Text(LocalDateTime.class, LocalDateTime::parse));
        SCALARS.put(OffsetDateTime.class, new Text(OffsetDateTime.class, OffsetDateTime::parse));
        SCALARS.put(ZonedDateTime.class, new Text(ZonedDateTime.class, ZonedDateTime::parse));
    }

    // ---------------------------------------------------------------- fields

    enum Kind {
        /** A primitive: proto3's implicit presence, zero left out. */
        PLAIN,
        /** A reference: written when not {@code null} ({@code optional} for a scalar). */
        NULLABLE,
        /** {@code Optional<T>}. */
        OPTIONAL,
        REPEATED,
        MAP,
        /** A field of an unbound type variable: written as its value's class says; not read. */
        DYNAMIC
    }

    /** Which Java container a repeated or map field fills. */
    enum Container {
        NONE,
        LIST,
        SET,
        SORTED_SET,
        ARRAY,
        MAP,
        SORTED_MAP
    }

    /** One field of a message: its number, its Java shape, how its values travel. */
    static final class Field {
        final String name;
        final int number;
        final Kind kind;
        final Container container;
        final Value value;
        /** A map's key. */
        final Value key;
        /** An array's element class. */
        final Class<?> component;
        /** What a {@link Kind#DYNAMIC} field asks how its value travels. */
        ProtoTypes types;

        Field(String name, int number, Kind kind, Container container, Value value, Value key, Class<?> component) {
            this.name = name;
            this.number = number;
            this.kind = kind;
            this.container = container;
            this.value = value;
            this.key = key;
            this.component = component;
        }

        void write(ProtoWriter w, Object v, int depth) {
            switch (kind) {
                case PLAIN -> {
                    if (!value.isZero(v)) {
                        w.tag(number, value.wireType);
                        value.write(w, v, depth);
                    }
                }
                case NULLABLE -> {
                    if (v != null) {
                        w.tag(number, value.wireType);
                        value.write(w, v, depth);
                    }
                }
                case OPTIONAL -> {
                    if (v != null && ((Optional<?>) v).isPresent()) {
                        w.tag(number, value.wireType);
                        value.write(w, ((Optional<?>) v).get(), depth);
                    }
                }
                case REPEATED -> writeRepeated(w, v, depth);
                case MAP -> writeMap(w, (Map<?, ?>) v, depth);
                case DYNAMIC -> {
                    if (v != null) {
                        Field f = types.runtimeField(number, v);
                        if (f != null) {
                            f.write(w, v, depth);
                        }
                    }
                }
            }
        }

        private void writeRepeated(ProtoWriter w, Object v, int depth) {
            if (v == null) {
                return;
            }
            Iterator<?> it = container == Container.ARRAY ? arrayIterator(v) : ((Collection<?>) v).iterator();
            if (!it.hasNext()) {
                return;
            }
            if (value.packable()) {
                w.tag(number, ProtoWriter.LEN);
                int mark = w.beginLen();
                while (it.hasNext()) {
                    value.write(w, element(it.next()), depth);
                }
                w.endLen(mark);
                return;
            }
            while (it.hasNext()) {
                w.tag(number, value.wireType);
                value.write(w, element(it.next()), depth);
            }
        }

        private Object element(Object e) {
            if (e == null) {
                throw new IllegalArgumentException(
                        "field " + name + " holds a null element, which a repeated protobuf" + " field cannot carry");
            }
            return e;
        }

        private void writeMap(ProtoWriter w, Map<?, ?> m, int depth) {
            if (m == null) {
                return;
            }
            for (Map.Entry<?, ?> e : m.entrySet()) {
                w.tag(number, ProtoWriter.LEN);
                int mark = w.beginLen();
                w.tag(1, key.wireType);
                key.write(w, element(e.getKey()), depth);
                if (e.getValue() != null) {
                    w.tag(2, value.wireType);
                    value.write(w, e.getValue(), depth);
                }
                w.endLen(mark);
            }
        }

        /** Reads one occurrence into {@code values[index]}. */
        @SuppressWarnings("unchecked")
        void read(ProtoReader r, int tag, Object[] values, int index) throws IOException {
            int wire = tag & 7;
            r.guard.count(1);
            if (kind == Kind.DYNAMIC) {
                throw new SerializationException("field " + name + " is of a type variable no declaration binds");
            }
            if (kind == Kind.REPEATED) {
                List<Object> list = (List<Object>) values[index];
                if (list == null) {
                    list = new ArrayList<>();
                    values[index] = list;
                }
                if (wire == ProtoWriter.LEN && value.packable()) {
                    int outer = r.pushLimit("packed field " + name);
                    while (!r.atEnd()) {
                        r.guard.count(1);
                        list.add(value.read(r));
                    }
                    r.popLimit(outer);
                    return;
                }
                expect(wire);
                list.add(value.read(r));
                return;
            }
            if (kind == Kind.MAP) {
                if (wire != ProtoWriter.LEN) {
                    throw new SerializationException("map field " + name + " (" + number + ") arrived as wire type "
                            + wire + ", where its entries are length-delimited (2)");
                }
                Map<Object, Object> map = (Map<Object, Object>) values[index];
                if (map == null) {
                    map = container == Container.SORTED_MAP ? new TreeMap<>() : new LinkedHashMap<>();
                    values[index] = map;
                }
                int outer = r.pushLimit("an entry of map field " + name);
                Object k = null;
                Object v = null;
                while (!r.atEnd()) {
                    int t = r.tag();
                    if (t >>> 3 == 1 && (t & 7) == key.wireType) {
                        k = key.read(r);
                    } else if (t >>> 3 == 2 && (t & 7) == value.wireType) {
                        v = value.read(r);
                    } else {
                        r.skip(t);
                    }
                }
                r.popLimit(outer);
                r.guard.count(1); // hashing, counted again as for a set
                map.put(k != null ? k : key.zero() != null ? key.zero() : "", v != null ? v : value.mapDefault());
                return;
            }
            expect(wire);
            Object v = value.read(r);
            values[index] = kind == Kind.OPTIONAL ? Optional.of(v) : v;
        }

        private void expect(int wire) throws SerializationException {
            if (wire != value.wireType) {
                throw new SerializationException("field " + name + " (" + number + ") arrived as wire type " + wire
                        + ", where its type is written as " + value.wireType);
            }
        }

        /** The Java value of the field when it did not arrive, or finished from what arrived. */
        @SuppressWarnings("unchecked")
        Object complete(Object read, io.xrpc.serialize.ReadGuard guard) {
            switch (kind) {
                case PLAIN:
                    return read != null ? read : value.zero();
                case NULLABLE, DYNAMIC:
                    return read;
                case OPTIONAL:
                    return read != null ? read : Optional.empty();
                case MAP:
                    return read != null
                            ? read
                            : container == Container.SORTED_MAP ? new TreeMap<>() : new LinkedHashMap<>();
                default:
                    List<Object> list = read != null ? (List<Object>) read : List.of();
                    return switch (container) {
                        case SET -> {
                            // Hashing is counted again, element by element, so that the clock is
                            // looked at while a set of colliding elements is built.
                            Set<Object> set = new LinkedHashSet<>();
                            for (Object e : list) {
                                guard.count(1);
                                set.add(e);
                            }
                            yield set;
                        }
                        case SORTED_SET -> {
                            Set<Object> set = new TreeSet<>();
                            for (Object e : list) {
                                guard.count(1);
                                set.add(e);
                            }
                            yield set;
                        }
                        case ARRAY -> {
                            Object array = Array.newInstance(component, list.size());
                            for (int i = 0; i < list.size(); i++) {
                                Array.set(array, i, list.get(i));
                            }
                            yield array;
                        }
                        default -> read != null ? list : new ArrayList<>();
                    };
            }
        }
    }

    private static Iterator<Object> arrayIterator(Object array) {
        int n = Array.getLength(array);
        return new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < n;
            }

            @Override
            public Object next() {
                return Array.get(array, i++);
            }
        };
    }

    /** The field that carries a value declared as {@code type}. */
    Field field(String name, int number, Type type) {
        Class<?> raw = raw(type);
        if (raw == Optional.class) {
            return new Field(name, number, Kind.OPTIONAL, Container.NONE, element(argument(type, 0)), null, null);
        }
        if (raw.isArray() && raw != byte[].class) {
            Type component = type instanceof GenericArrayType g ? g.getGenericComponentType() : raw.getComponentType();
            return new Field(name, number, Kind.REPEATED, Container.ARRAY, element(component), null, raw(component));
        }
        if (Collection.class.isAssignableFrom(raw)) {
            Container c =
                    raw == List.class || raw == Collection.class || raw == ArrayList.class || raw == Iterable.class
                            ? Container.LIST
                            : raw == Set.class || raw == HashSet.class || raw == LinkedHashSet.class
                                    ? Container.SET
                                    : raw == SortedSet.class || raw == NavigableSet.class || raw == TreeSet.class
                                            ? Container.SORTED_SET
                                            : null;
            if (c == null) {
                throw new Unsupported(
                        raw.getName() + " is not mapped (a List, Set, Collection or array is a" + " repeated field)");
            }
            return new Field(name, number, Kind.REPEATED, c, element(argument(type, 0)), null, null);
        }
        if (Map.class.isAssignableFrom(raw)) {
            Container c = raw == Map.class || raw == HashMap.class || raw == LinkedHashMap.class
                    ? Container.MAP
                    : raw == SortedMap.class || raw == NavigableMap.class || raw == TreeMap.class
                            ? Container.SORTED_MAP
                            : null;
            if (c == null) {
                throw new Unsupported(raw.getName() + " is not mapped (a Map, HashMap or TreeMap is a map field)");
            }
            Value key = element(argument(type, 0));
            if (key != STRING && key != INT32 && key != INT64 && key != BOOL) {
                throw new Unsupported("a map key of " + argument(type, 0).getTypeName()
                        + ": protobuf map keys are strings, integers or booleans");
            }
            return new Field(name, number, Kind.MAP, c, element(argument(type, 1)), key, null);
        }
        return new Field(
                name, number, raw.isPrimitive() ? Kind.PLAIN : Kind.NULLABLE, Container.NONE, value(type), null, null);
    }

    /** A value inside a repeated field, a map or an Optional: not a container itself. */
    private Value element(Type type) {
        Class<?> raw = raw(type);
        if (raw == Optional.class
                || (raw.isArray() && raw != byte[].class)
                || Collection.class.isAssignableFrom(raw)
                || Map.class.isAssignableFrom(raw)) {
            throw new Unsupported("a " + type.getTypeName() + " inside a list, map or Optional: protobuf has no"
                    + " repeated field of repeated fields (hold it in a record)");
        }
        return value(type);
    }

    /** How a value declared as {@code type} travels; throws {@link Unsupported} saying why it cannot. */
    Value value(Type type) {
        Class<?> raw = raw(type);
        Value scalar = SCALARS.get(raw);
        if (scalar != null) {
            return scalar;
        }
        if (raw.isEnum()) {
            return new EnumValue(raw);
        }
        String why = notMessage(raw);
        if (why != null) {
            throw new Unsupported(why);
        }
        MessageValue m = messageOf(type);
        if (m.broken != null) {
            throw new Unsupported(m.broken);
        }
        return m;
    }

    /** Why a class is not a message, or {@code null} when it is one (an application's record or concrete class). */
    static String notMessage(Class<?> c) {
        if (c == Object.class || c.isInterface() || Modifier.isAbstract(c.getModifiers()) && !c.isPrimitive()) {
            return c.getName() + " is polymorphic: protobuf names no subclass (declare a concrete class or record;"
                    + " the method stays callable over JSON and XRpc's binary protocol)";
        }
        if (c.isPrimitive() || c.isArray() || c.isEnum() || SCALARS.containsKey(c)) {
            return c.getName() + " is a value, not a message";
        }
        ClassLoader l = c.getClassLoader();
        if (l == null || l == ClassLoader.getPlatformClassLoader()) {
            return c.getName() + " is a JDK class protobuf has no mapping for (docs/GRPC.md lists those it has)";
        }
        if (c.isAnonymousClass() || c.isLocalClass() || (c.isMemberClass() && !Modifier.isStatic(c.getModifiers()))) {
            return c.getName() + " is an inner, local or anonymous class";
        }
        return null;
    }

    /** Whether values of {@code c} are messages themselves (a method taking one travels as it). */
    static boolean isMessage(Class<?> c) {
        return notMessage(c) == null;
    }

    private static Type argument(Type type, int i) {
        if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > i) {
            return p.getActualTypeArguments()[i];
        }
        throw new Unsupported(type.getTypeName() + " without type arguments: protobuf needs its element type");
    }

    /** {@code type} with the type variables {@code bindings} names replaced ({@code ? extends X} read as {@code X}). */
    static Type substitute(Type type, Map<java.lang.reflect.TypeVariable<?>, Type> bindings) {
        if (type instanceof java.lang.reflect.TypeVariable<?> v) {
            return bindings.getOrDefault(v, v);
        }
        if (type instanceof java.lang.reflect.WildcardType w) {
            return w.getLowerBounds().length == 0 ? substitute(w.getUpperBounds()[0], bindings) : w;
        }
        if (type instanceof GenericArrayType g) {
            Type c = substitute(g.getGenericComponentType(), bindings);
            return c instanceof Class<?> k ? Array.newInstance(k, 0).getClass() : (GenericArrayType) () -> c;
        }
        if (type instanceof ParameterizedType p) {
            Type[] args = p.getActualTypeArguments().clone();
            boolean changed = false;
            for (int i = 0; i < args.length; i++) {
                Type a = substitute(args[i], bindings);
                changed |= a != args[i];
                args[i] = a;
            }
            return changed ? new Parameterized((Class<?>) p.getRawType(), p.getOwnerType(), args) : p;
        }
        return type;
    }

    static boolean hasVariable(Type type) {
        if (type instanceof java.lang.reflect.TypeVariable<?> || type instanceof java.lang.reflect.WildcardType) {
            return true;
        }
        if (type instanceof GenericArrayType g) {
            return hasVariable(g.getGenericComponentType());
        }
        if (type instanceof ParameterizedType p) {
            for (Type a : p.getActualTypeArguments()) {
                if (hasVariable(a)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A parameterized type built here, equal to the JDK's own for the same raw type and arguments. */
    record Parameterized(Class<?> raw, Type owner, Type[] args) implements ParameterizedType {
        @Override
        public Type[] getActualTypeArguments() {
            return args.clone();
        }

        @Override
        public Type getRawType() {
            return raw;
        }

        @Override
        public Type getOwnerType() {
            return owner;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ParameterizedType p
                    && raw.equals(p.getRawType())
                    && java.util.Objects.equals(owner, p.getOwnerType())
                    && java.util.Arrays.equals(args, p.getActualTypeArguments());
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(args) ^ java.util.Objects.hashCode(owner) ^ raw.hashCode();
        }

        @Override
        public String getTypeName() {
            StringBuilder b = new StringBuilder(raw.getTypeName()).append('<');
            for (int i = 0; i < args.length; i++) {
                b.append(i == 0 ? "" : ", ").append(args[i].getTypeName());
            }
            return b.append('>').toString();
        }

        @Override
        public String toString() {
            return getTypeName();
        }
    }

    static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        if (type instanceof GenericArrayType g) {
            return Array.newInstance(raw(g.getGenericComponentType()), 0).getClass();
        }
        throw new Unsupported("the type " + type.getTypeName() + " is not concrete (a type variable or wildcard)");
    }

    // ---------------------------------------------------------------- messages

    /** A list of fields read into and written from an {@code Object[]} (a method's arguments, a wrapped value). */
    static class Fields {
        Field[] fields = new Field[0];
        /** Position in {@link #fields} by field number - 1, for numbers up to {@value #DENSE}; -1 for none. */
        int[] byNumber = new int[0];
        /** Position by field number, where some number is above {@value #DENSE}. */
        Map<Integer, Integer> sparse;

        static final int DENSE = 4096;

        void set(List<Field> list) {
            this.fields = list.toArray(new Field[0]);
            int max = 0;
            for (Field f : fields) {
                max = Math.max(max, f.number);
            }
            Map<Integer, Integer> seen = new HashMap<>();
            for (int i = 0; i < fields.length; i++) {
                Integer clash = seen.put(fields[i].number, i);
                if (clash != null) {
                    throw new Unsupported("fields " + fields[clash].name + " and " + fields[i].name
                            + " are both numbered " + fields[i].number);
                }
            }
            if (max > DENSE) {
                this.sparse = seen;
                this.byNumber = new int[0];
                return;
            }
            int[] by = new int[max];
            java.util.Arrays.fill(by, -1);
            for (int i = 0; i < fields.length; i++) {
                by[fields[i].number - 1] = i;
            }
            this.byNumber = by;
        }

        /** The position of field number {@code n}, or -1. */
        int position(int n) {
            if (sparse != null) {
                Integer i = sparse.get(n);
                return i == null ? -1 : i;
            }
            return n <= byNumber.length ? byNumber[n - 1] : -1;
        }

        void writeValues(ProtoWriter w, Object[] values, int depth) {
            for (int i = 0; i < fields.length; i++) {
                fields[i].write(w, values[i], depth);
            }
        }

        /** Reads fields to the reader's limit; unknown numbers are skipped and counted. */
        Object[] readValues(ProtoReader r) throws IOException {
            Object[] values = new Object[fields.length];
            while (!r.atEnd()) {
                int tag = r.tag();
                int i = position(tag >>> 3);
                if (i < 0) {
                    r.skip(tag);
                } else {
                    fields[i].read(r, tag, values, i);
                }
            }
            for (int i = 0; i < fields.length; i++) {
                values[i] = fields[i].complete(values[i], r.guard);
            }
            return values;
        }
    }

    /** An application class as a message. */
    final class MessageValue extends Value {
        final Class<?> type;
        /** The class, or its parameterization. */
        final Type declared;
        /** What the class's type variables stand for here (none for a plain class, or a generic one written as itself). */
        final Map<java.lang.reflect.TypeVariable<?>, Type> bindings;

        final Fields fields = new Fields();
        String broken;
        private boolean record;
        private Constructor<?> constructor;
        private Method[] accessors;
        private java.lang.reflect.Field[] javaFields;
        private volatile boolean ready;

        MessageValue(Type declared) {
            super(ProtoWriter.LEN, T_MESSAGE);
            this.declared = declared;
            this.type = raw(declared);
            this.bindings = new HashMap<>();
            if (declared instanceof ParameterizedType p) {
                java.lang.reflect.TypeVariable<?>[] vars = type.getTypeParameters();
                for (int i = 0; i < vars.length && i < p.getActualTypeArguments().length; i++) {
                    bindings.put(vars[i], p.getActualTypeArguments()[i]);
                }
            }
        }

        private void resolve() {
            List<Field> list = new ArrayList<>();
            try {
                if (type.isRecord()) {
                    record = true;
                    RecordComponent[] components = type.getRecordComponents();
                    Class<?>[] types = new Class<?>[components.length];
                    accessors = new Method[components.length];
                    int number = 0;
                    for (int i = 0; i < components.length; i++) {
                        types[i] = components[i].getType();
                        accessors[i] = components[i].getAccessor();
                        accessors[i].setAccessible(true);
                        number = number(components[i].getAnnotation(ProtoField.class), number, components[i].getName());
                        list.add(member(components[i].getName(), number, components[i].getGenericType()));
                    }
                    constructor = type.getDeclaredConstructor(types);
                } else {
                    List<java.lang.reflect.Field> all = new ArrayList<>();
                    collectFields(type, all);
                    javaFields = all.toArray(new java.lang.reflect.Field[0]);
                    int number = 0;
                    for (int i = 0; i < javaFields.length; i++) {
                        javaFields[i].setAccessible(true);
                        number = number(javaFields[i].getAnnotation(ProtoField.class), number, javaFields[i].getName());
                        list.add(member(javaFields[i].getName(), number, javaFields[i].getGenericType()));
                    }
                    try {
                        constructor = type.getDeclaredConstructor();
                    } catch (NoSuchMethodException e) {
                        throw new Unsupported(type.getName() + " has no no-argument constructor (a record needs none)");
                    }
                }
                constructor.setAccessible(true);
                fields.set(list);
            } catch (Unsupported u) {
                broken = u.getMessage().startsWith(type.getName())
                        ? u.getMessage()
                        : type.getName() + ": " + u.getMessage();
            } catch (NoSuchMethodException | RuntimeException e) {
                broken = type.getName() + " cannot be built or read: " + e;
            }
        }

        /**
         * A field of this class, its type variables bound; one left unbound (a generic class written
         * as itself, where no declaration says what it holds) is written as its value's class says,
         * and cannot be read.
         */
        private Field member(String name, int number, Type generic) {
            Type t = substitute(generic, bindings);
            if (hasVariable(t)) {
                Field f = new Field(name, number, Kind.DYNAMIC, Container.NONE, null, null, null);
                f.types = ProtoTypes.this;
                return f;
            }
            return field(name, number, t);
        }

        private int number(ProtoField pinned, int previous, String name) {
            int n = pinned == null ? previous + 1 : pinned.value();
            if (n < 1 || n > 536_870_911 || (n >= 19_000 && n <= 19_999)) {
                throw new Unsupported("field " + name + " of " + type.getName() + " would be numbered " + n
                        + " (protobuf numbers are 1 to 536,870,911, not 19,000 to 19,999)");
            }
            return n;
        }

        private void collectFields(Class<?> c, List<java.lang.reflect.Field> into) {
            if (c == null || c == Object.class) {
                return;
            }
            collectFields(c.getSuperclass(), into);
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) && !Modifier.isTransient(m) && !f.isSynthetic()) {
                    into.add(f);
                }
            }
        }

        Object valueOf(Object o, int i) {
            try {
                return record ? accessors[i].invoke(o) : javaFields[i].get(o);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("reading " + type.getName() + ": " + e, e);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(
                        "an accessor of " + type.getName() + " threw " + e.getCause(), e.getCause());
            }
        }

        /** Writes the fields of {@code o} without a length: a message on its own. */
        void writeTop(ProtoWriter w, Object o, int depth) {
            if (depth > maxDepth) {
                throw new IllegalArgumentException("the value nests deeper than " + maxDepth + " levels (most likely"
                        + " a cycle: protobuf keeps no shared references), at " + type.getName());
            }
            MessageValue m = o.getClass() == type ? this : messageOrThis(o.getClass());
            m.check();
            Field[] fs = m.fields.fields;
            for (int i = 0; i < fs.length; i++) {
                fs[i].write(w, m.valueOf(o, i), depth + 1);
            }
        }

        private MessageValue messageOrThis(Class<?> actual) {
            MessageValue m = ProtoTypes.isMessage(actual) ? message(actual) : this;
            return m.broken == null ? m : this; // a subclass protobuf cannot carry is written as the declared class
        }

        @Override
        void write(ProtoWriter w, Object v, int depth) {
            int mark = w.beginLen();
            writeTop(w, v, depth);
            w.endLen(mark);
        }

        void check() {
            if (broken != null) {
                throw new IllegalArgumentException("protobuf cannot carry " + broken);
            }
        }

        /** Reads a message's fields to the reader's limit and builds it. */
        Object readTop(ProtoReader r) throws IOException {
            if (broken != null) {
                throw new SerializationException("protobuf cannot carry " + broken);
            }
            allowList.check(type.getName());
            r.guard.count(fields.fields.length); // what building it makes: a value, a collection, a default a field
            Object[] values = fields.readValues(r);
            try {
                if (record) {
                    return constructor.newInstance(values);
                }
                Object o = constructor.newInstance();
                for (int i = 0; i < values.length; i++) {
                    javaFields[i].set(o, values[i]);
                }
                return o;
            } catch (InvocationTargetException e) {
                throw new SerializationException("building " + type.getName() + " failed: " + e.getCause(), e);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new SerializationException("building " + type.getName() + " failed: " + e, e);
            }
        }

        @Override
        Object read(ProtoReader r) throws IOException {
            int outer = r.pushLimit("a " + type.getSimpleName());
            r.guard.enter();
            Object o = readTop(r);
            r.guard.exit();
            r.popLimit(outer);
            return o;
        }
    }

    /** The message of class {@code c} (which {@link #isMessage} accepts); its fields resolved once. */
    MessageValue message(Class<?> c) {
        return messageOf(c);
    }

    /** The message of a class or of a parameterization of a generic class. */
    MessageValue messageOf(Type c) {
        MessageValue m = messages.get(c);
        if (m != null && m.ready) {
            return m;
        }
        synchronized (this) {
            m = messages.get(c);
            if (m != null) {
                return m; // ready, or being resolved by this thread (a type that holds itself)
            }
            m = new MessageValue(c);
            messages.put(c, m);
            m.resolve();
            m.ready = true;
            return m;
        }
    }

    /** The fields of a method's arguments: parameter {@code i} is field {@code i + 1}. */
    Fields arguments(Type[] genericTypes, String[] names) {
        List<Type> key = List.of(genericTypes);
        Fields f = argumentMessages.get(key);
        if (f == null) {
            List<Field> list = new ArrayList<>();
            for (int i = 0; i < genericTypes.length; i++) {
                list.add(field(names == null ? "arg" + i : names[i], i + 1, genericTypes[i]));
            }
            f = new Fields();
            f.set(list);
            argumentMessages.put(key, f);
        }
        return f;
    }

    /** The field of a value of runtime class {@code c} written without a declared type. */
    Field runtimeField(int number, Object v) {
        if (v instanceof Optional<?> o) {
            return o.isPresent()
                    ? new Field("value", number, Kind.OPTIONAL, Container.NONE, runtimeValue(o.get()), null, null)
                    : null;
        }
        if (v instanceof Collection<?> c) {
            Object first = c.isEmpty() ? null : c.iterator().next();
            return first == null
                    ? null
                    : new Field("value", number, Kind.REPEATED, Container.LIST, runtimeValue(first), null, null);
        }
        if (v.getClass().isArray() && !(v instanceof byte[])) {
            Object first = Array.getLength(v) == 0 ? null : Array.get(v, 0);
            return first == null
                    ? null
                    : new Field("value", number, Kind.REPEATED, Container.ARRAY, runtimeValue(first), null, null);
        }
        if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                return null;
            }
            Map.Entry<?, ?> e = m.entrySet().iterator().next();
            return new Field(
                    "value",
                    number,
                    Kind.MAP,
                    Container.MAP,
                    e.getValue() == null ? STRING : runtimeValue(e.getValue()),
                    runtimeValue(e.getKey()),
                    null);
        }
        return new Field("value", number, Kind.NULLABLE, Container.NONE, runtimeValue(v), null, null);
    }

    private Value runtimeValue(Object v) {
        Class<?> c = v.getClass();
        if (c.isEnum() || (c.getSuperclass() != null && c.getSuperclass().isEnum())) {
            return new EnumValue(c.isEnum() ? c : c.getSuperclass());
        }
        return value(c);
    }
}
