package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.AbstractHessianInput;
import com.alibaba.com.caucho.hessian.io.ArrayDeserializer;
import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.MapDeserializer;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadGuard;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hessian's serializer factory with XRpc's reading rules. Every type name read from a payload is
 * checked before its class is loaded: it must be a Hessian built-in, allowed by the
 * {@link ClassAllowList}, or one of Hessian's own handle classes for JDK values; it must name a
 * class that exists (Hessian would otherwise read an unknown class as a map, log a line and cache
 * the name in a JVM-wide map, for every name a peer invents); an array type may have at most
 * {@value ReadGuard#MAX_ARRAY_DIMENSIONS} dimensions; and a {@code java.time} name must be an
 * enum, since Hessian carries java.time values as its handles and would build a raw one field by
 * field without any check. Hessian's own class filter would quietly turn a refused class into a map;
 * this refuses it loudly.
 *
 * <p>The list and object readers it hands out claim their lengths and field counts against the
 * message ({@link GuardedHessianInput#claim}) before Hessian allocates for them. And a few JDK
 * types get readers and writers of XRpc's ({@link HessianValues}): EnumSet (Hessian's needs
 * {@code java.lang.Class} on the allow-list, whose reader loads any class), BigInteger (Hessian
 * copies its private fields, invariants unchecked), BigDecimal (digit count bounded), Timestamp
 * (nanoseconds kept, except in an object's field, which Hessian writes itself).
 */
final class AllowListSerializerFactory extends SerializerFactory {
    /** Hessian's built-in type names, the only names without a package it may read. */
    private static final Set<String> BUILT_IN = Set.of(
            "void",
            "boolean",
            "byte",
            "short",
            "int",
            "long",
            "float",
            "double",
            "char",
            "string",
            "object",
            "date",
            "[boolean",
            "[byte",
            "[short",
            "[int",
            "[long",
            "[float",
            "[double",
            "[char",
            "[string",
            "[object");

    private static final String HESSIAN = "com.alibaba.com.caucho.hessian.io.";
    /** Hessian's stand-ins for JDK values, rebuilt in readResolve. */
    private static final Set<String> HANDLES = Set.of(HESSIAN + "BitSetHandle", HESSIAN + "LocaleHandle");

    private static final String TIME_HANDLES = HESSIAN + "java8.";
    /** Type names whose readers are kept; past it they are looked up anew each time. */
    private static final int MAX_CACHED = 4096;

    private final ClassAllowList allowList;
    // Hessian's own cache of deserializers by type name locks a shared map on every lookup.
    private final Map<String, Deserializer> byName = new ConcurrentHashMap<>();

    AllowListSerializerFactory(ClassAllowList allowList) {
        this.allowList = allowList;
        // The allow-list decides what may be read; like kryo and protostuff, hessian then
        // carries plain DTOs whether or not they implement Serializable.
        setAllowNonSerializable(true);
    }

    @Override
    public Deserializer getDeserializer(String type) throws HessianProtocolException {
        if (type == null || type.isEmpty()) {
            return super.getDeserializer(type);
        }
        Deserializer d = byName.get(type);
        if (d != null) {
            return d;
        }
        if (BUILT_IN.contains(type)) {
            d = super.getDeserializer(type);
        } else if (type.charAt(0) == '[') {
            int dims = 0;
            while (dims < type.length() && type.charAt(dims) == '[') {
                dims++;
            }
            if (dims > ReadGuard.MAX_ARRAY_DIMENSIONS) {
                throw new PayloadLimitException("an array type of " + dims + " dimensions (expected: at most "
                        + ReadGuard.MAX_ARRAY_DIMENSIONS + ")");
            }
            d = new ArrayDeserializer(getDeserializer(type.substring(1)).getType());
        } else if (type.equals(HessianValues.ENUM_SET)) {
            d = HessianValues.ENUM_SET_READER;
        } else if (type.equals(HessianValues.ENUM_MAP)) {
            d = HessianValues.ENUM_MAP_READER;
        } else {
            Class<?> c;
            try {
                c = loadSerializedClass(type);
            } catch (ClassNotFoundException e) {
                throw new HessianProtocolException("class " + type + " not found");
            }
            if (c.getName().startsWith("java.time.") && !c.isEnum()) {
                throw new ClassNotAllowedException(type + " (Hessian carries java.time values as its handles)");
            }
            d = getDeserializer(c);
        }
        if (d != null && byName.size() < MAX_CACHED) {
            byName.put(type, d);
        }
        return d;
    }

    @Override
    public Class<?> loadSerializedClass(String className) throws ClassNotFoundException {
        check(className);
        return super.loadSerializedClass(className);
    }

    private void check(String name) {
        if (name.startsWith(HESSIAN)) {
            if (!HANDLES.contains(name) && !(name.startsWith(TIME_HANDLES) && name.endsWith("Handle"))) {
                throw new ClassNotAllowedException(name);
            }
        } else {
            allowList.check(name);
        }
    }

    @Override
    protected Deserializer loadDeserializer(Class cl) throws HessianProtocolException {
        if (cl == BigDecimal.class) {
            return HessianValues.BIG_DECIMAL_READER;
        }
        if (cl == BigInteger.class) {
            return HessianValues.BIG_INTEGER_READER;
        }
        if (cl == Timestamp.class) {
            return HessianValues.TIMESTAMP_READER;
        }
        if (cl == EnumMap.class) {
            return HessianValues.ENUM_MAP_READER;
        }
        Deserializer d = super.loadDeserializer(cl);
        return d != null && d.getClass() == MapDeserializer.class ? new MapReader(cl) : d;
    }

    // Hessian reads a map without a type name (and a typed one it has no reader for) with a
    // HashMap reader of its own, in three places: each is replaced by one that says which
    // children are keys.
    private static final MapReader HASH_MAP_READER = new MapReader(HashMap.class);

    @Override
    public Object readMap(AbstractHessianInput in, String type) throws IOException {
        Deserializer d = getDeserializer(type);
        return (d != null ? d : HASH_MAP_READER).readMap(in);
    }

    @Override
    public Object readObject(AbstractHessianInput in, String type, String[] fieldNames) throws IOException {
        Deserializer d = getDeserializer(type);
        return (d != null ? d : HASH_MAP_READER).readObject(in, fieldNames);
    }

    @Override
    public Deserializer getObjectDeserializer(String type) throws HessianProtocolException {
        Deserializer d = getDeserializer(type);
        return d != null ? d : HASH_MAP_READER;
    }

    /**
     * Hessian's map reader, telling the input before each key and each value which it is, so
     * that only keys count as hashed ({@link GuardedHessianInput#nextMapChild}).
     */
    static final class MapReader extends MapDeserializer {
        MapReader(Class<?> type) {
            super(type);
        }

        @Override
        @SuppressWarnings({"rawtypes", "unchecked"})
        protected void doReadMap(AbstractHessianInput in, Map map, Class<?> keyType, Class<?> valueType)
                throws IOException {
            if (!(in instanceof GuardedHessianInput g)) {
                super.doReadMap(in, map, keyType, valueType);
                return;
            }
            SerializerFactory factory = g.factory();
            Deserializer keys = keyType == null ? null : factory.getDeserializer(keyType.getName());
            Deserializer values = valueType == null ? null : factory.getDeserializer(valueType.getName());
            while (!in.isEnd()) {
                g.nextMapChild(true);
                Object key = keys != null ? keys.readObject(in) : in.readObject();
                g.nextMapChild(false);
                Object value = values != null ? values.readObject(in) : in.readObject();
                map.put(key, value);
            }
        }

        @Override
        public Object readObject(AbstractHessianInput in, String[] fieldNames) throws IOException {
            if (in instanceof GuardedHessianInput g) {
                g.nextMapChild(false); // the keys are the field names, read already
            }
            return super.readObject(in, fieldNames);
        }
    }

    @Override
    protected Serializer loadSerializer(Class<?> cl) throws HessianProtocolException {
        if (EnumSet.class.isAssignableFrom(cl)) {
            return HessianValues.ENUM_SET_WRITER;
        }
        if (cl == EnumMap.class) {
            return HessianValues.ENUM_MAP_WRITER;
        }
        if (cl == BigInteger.class) {
            return HessianValues.BIG_INTEGER_WRITER;
        }
        if (cl == Timestamp.class) {
            return HessianValues.TIMESTAMP_WRITER;
        }
        return super.loadSerializer(cl);
    }

    /** Loads an enum named by a payload (for EnumSet), through the same checks as any class. */
    Class<?> enumClass(String name) throws HessianProtocolException {
        Class<?> c;
        try {
            c = loadSerializedClass(name);
        } catch (ClassNotFoundException e) {
            throw new HessianProtocolException("class " + name + " not found");
        }
        if (!c.isEnum()) {
            throw new HessianProtocolException(name + " is not an enum");
        }
        return c;
    }

    @Override
    public Deserializer getListDeserializer(String type, Class cl) throws HessianProtocolException {
        Deserializer d = super.getListDeserializer(type, cl);
        return d == null ? null : new Claiming(d);
    }

    @Override
    public Deserializer getObjectDeserializer(String type, Class cl) throws HessianProtocolException {
        Deserializer d = super.getObjectDeserializer(type, cl);
        return d == null ? null : new Claiming(d);
    }

    /** The input reading on this thread, for {@link Claiming#createFields}, which is not given one. */
    static final ThreadLocal<GuardedHessianInput> READING = new ThreadLocal<>();

    /** A reader that claims the length of a fixed-length list and the field count of a class definition first. */
    static final class Claiming implements Deserializer {
        private final Deserializer d;

        Claiming(Deserializer d) {
            this.d = d;
        }

        private String what() {
            return d.getType() == null ? "a list" : d.getType().getTypeName();
        }

        private void claim(AbstractHessianInput in, int length) {
            if (in instanceof GuardedHessianInput g) {
                g.claim(what(), length);
            }
        }

        @Override
        public Class<?> getType() {
            return d.getType();
        }

        @Override
        public boolean isReadResolve() {
            return d.isReadResolve();
        }

        @Override
        public Object readObject(AbstractHessianInput in) throws IOException {
            return d.readObject(in);
        }

        @Override
        public Object readList(AbstractHessianInput in, int length) throws IOException {
            return d.readList(in, length);
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length) throws IOException {
            claim(in, length);
            return d.readLengthList(in, length);
        }

        @Override
        public Object readMap(AbstractHessianInput in) throws IOException {
            return d.readMap(in);
        }

        @Override
        public Object[] createFields(int len) {
            GuardedHessianInput in = READING.get();
            if (in != null) {
                in.claim(what() + "'s class definition", len);
            } else if (len < 0) {
                throw new PayloadLimitException("a class definition of " + len + " fields");
            }
            return d.createFields(len);
        }

        @Override
        public Object createField(String name) {
            return d.createField(name);
        }

        @Override
        public Object readObject(AbstractHessianInput in, Object[] fields) throws IOException {
            return d.readObject(in, fields);
        }

        @Override
        public Object readObject(AbstractHessianInput in, String[] fieldNames) throws IOException {
            return d.readObject(in, fieldNames);
        }

        @Override
        public Object readList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return d.readList(in, length, expectType);
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            claim(in, length);
            return d.readLengthList(in, length, expectType);
        }

        @Override
        public Object readMap(AbstractHessianInput in, Class<?> expectKeyType, Class<?> expectValueType)
                throws IOException {
            return d.readMap(in, expectKeyType, expectValueType);
        }
    }
}
