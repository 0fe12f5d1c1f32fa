package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.AbstractDeserializer;
import com.alibaba.com.caucho.hessian.io.AbstractHessianInput;
import com.alibaba.com.caucho.hessian.io.AbstractHessianOutput;
import com.alibaba.com.caucho.hessian.io.AbstractListDeserializer;
import com.alibaba.com.caucho.hessian.io.AbstractSerializer;
import com.alibaba.com.caucho.hessian.io.AbstractStringValueDeserializer;
import com.alibaba.com.caucho.hessian.io.BigDecimalDeserializer;
import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.com.caucho.hessian.io.StringValueSerializer;
import io.xrpc.internal.EnumTypes;
import io.xrpc.serialize.PayloadLimitException;
import java.io.IOException;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;

/**
 * Readers and writers of XRpc's for JDK values Hessian carries badly or unsafely.
 *
 * <ul>
 *   <li>{@code EnumSet}: a typed list {@code java.util.EnumSet} of the enum's class name and then
 *       its constants' names. Hessian's own form needs {@code java.lang.Class} on the allow-list,
 *       and its reader loads whatever class it is told.</li>
 *   <li>{@code EnumMap}: a typed list {@code java.util.EnumMap} of the key enum's class name and
 *       then each key's name followed by its value. Hessian writes it as a plain map, which
 *       arrived as a {@code HashMap} and failed where an {@code EnumMap} was declared.</li>
 *   <li>{@code BigInteger}: its decimal text, like BigDecimal. Hessian copies the private fields,
 *       so a peer could send a value whose {@code equals} and {@code compareTo} disagree.</li>
 *   <li>{@code BigDecimal} and {@code BigInteger} text of at most {@value #MAX_DIGITS}
 *       characters: parsing is quadratic in it (200,000 digits took half a second).</li>
 *   <li>{@code java.sql.Timestamp}: milliseconds and nanoseconds; Hessian's form drops the
 *       nanoseconds below a millisecond. Only as a value of its own or in a collection: a
 *       Timestamp field of an object is written by Hessian's field serializers and still loses
 *       them.</li>
 * </ul>
 */
final class HessianValues {
    static final String ENUM_SET = "java.util.EnumSet";
    static final String ENUM_MAP = "java.util.EnumMap";
    static final String TIMESTAMP = "java.sql.Timestamp";
    static final int MAX_DIGITS = 10_000;

    private HessianValues() {}

    private static String digits(String value, String type) {
        if (value != null && value.length() > MAX_DIGITS) {
            throw new PayloadLimitException(
                    type + " of " + value.length() + " characters (expected: at most " + MAX_DIGITS + ")");
        }
        return value;
    }

    static final Serializer ENUM_SET_WRITER = new AbstractSerializer() {
        @Override
        public void writeObject(Object obj, AbstractHessianOutput out) throws IOException {
            if (out.addRef(obj)) { // Hessian2Output writes null itself
                return;
            }
            EnumSet<?> set = (EnumSet<?>) obj;
            boolean hasEnd = out.writeListBegin(set.size() + 1, ENUM_SET);
            out.writeString(EnumTypes.elementType(set).getName());
            for (Enum<?> e : set) {
                out.writeString(e.name());
            }
            if (hasEnd) {
                out.writeListEnd();
            }
        }
    };

    static final Deserializer ENUM_SET_READER = new EnumListReader(EnumSet.class, "EnumSet") {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        Object readElements(AbstractHessianInput in, Class type, int count) throws IOException {
            EnumSet set = EnumSet.noneOf(type);
            for (int i = 0; more(in, i, count); i++) {
                set.add(constant(type, in.readString()));
            }
            return set;
        }
    };

    static final Serializer ENUM_MAP_WRITER = new AbstractSerializer() {
        @Override
        public void writeObject(Object obj, AbstractHessianOutput out) throws IOException {
            if (out.addRef(obj)) {
                return;
            }
            EnumMap<?, ?> map = (EnumMap<?, ?>) obj;
            boolean hasEnd = out.writeListBegin(2 * map.size() + 1, ENUM_MAP);
            out.writeString(EnumTypes.keyType(map).getName());
            for (Map.Entry<? extends Enum<?>, ?> e : map.entrySet()) {
                out.writeString(e.getKey().name());
                out.writeObject(e.getValue());
            }
            if (hasEnd) {
                out.writeListEnd();
            }
        }
    };

    static final Deserializer ENUM_MAP_READER = new EnumListReader(EnumMap.class, "EnumMap") {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        Object readElements(AbstractHessianInput in, Class type, int count) throws IOException {
            if (count > 0 && count % 2 != 0) {
                throw new HessianProtocolException(
                        "EnumMap of " + count + " parts after its key type (expected:" + " key and value pairs)");
            }
            EnumMap map = new EnumMap(type);
            for (int i = 0; more(in, i, count); i += 2) {
                map.put(constant(type, in.readString()), in.readObject());
            }
            return map;
        }
    };

    /**
     * Reads a typed list whose first element names an enum class (through the allow-list) and
     * whose rest are that enum's constants by name, with whatever goes beside them: the form of
     * EnumSet and EnumMap.
     */
    private abstract static class EnumListReader extends AbstractListDeserializer {
        private final Class<?> type;
        private final String what;

        EnumListReader(Class<?> type, String what) {
            this.type = type;
            this.what = what;
        }

        @Override
        public Class<?> getType() {
            return type;
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length) throws IOException {
            return read(in, length);
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return read(in, length);
        }

        @Override
        public Object readList(AbstractHessianInput in, int length) throws IOException {
            return read(in, -1);
        }

        @Override
        public Object readList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return read(in, -1);
        }

        /** {@code length} elements, or up to the list's end when it is negative. */
        @SuppressWarnings("rawtypes")
        private Object read(AbstractHessianInput in, int length) throws IOException {
            int ref = in.addRef(null);
            String name = length == 0 || length < 0 && in.isEnd() ? null : in.readString();
            if (name == null) {
                throw new HessianProtocolException(what + " without its enum type");
            }
            Class enumType = ((AllowListSerializerFactory) ((Hessian2Input) in).getSerializerFactory()).enumClass(name);
            Object value = readElements(in, enumType, length < 0 ? -1 : length - 1);
            if (length < 0) {
                in.readEnd();
            }
            in.setRef(ref, value);
            return value;
        }

        /** The elements after the enum type: {@code count} of them, or up to the list's end when negative. */
        @SuppressWarnings("rawtypes")
        abstract Object readElements(AbstractHessianInput in, Class enumType, int count) throws IOException;

        static boolean more(AbstractHessianInput in, int i, int count) throws IOException {
            return count < 0 ? !in.isEnd() : i < count;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Enum constant(Class enumType, String name) throws HessianProtocolException {
            try {
                return Enum.valueOf(enumType, name);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new HessianProtocolException(
                        what + " of " + enumType.getName() + " with " + name + ", which is not one of its constants");
            }
        }
    }

    static final Serializer BIG_INTEGER_WRITER = StringValueSerializer.SER;

    static final Deserializer BIG_INTEGER_READER = new AbstractStringValueDeserializer() {
        @Override
        public Class<?> getType() {
            return BigInteger.class;
        }

        @Override
        protected Object create(String value) throws IOException {
            if (value == null) {
                throw new HessianProtocolException("java.math.BigInteger without its value");
            }
            return new BigInteger(digits(value, "java.math.BigInteger"));
        }
    };

    static final Deserializer BIG_DECIMAL_READER = new BigDecimalDeserializer() {
        @Override
        protected Object create(String value) {
            return super.create(digits(value, "java.math.BigDecimal"));
        }
    };

    static final Serializer TIMESTAMP_WRITER = new AbstractSerializer() {
        @Override
        public void writeObject(Object obj, AbstractHessianOutput out) throws IOException {
            if (out.addRef(obj)) {
                return;
            }
            Timestamp t = (Timestamp) obj;
            int ref = out.writeObjectBegin(TIMESTAMP);
            if (ref < -1) {
                out.writeString("value");
                out.writeUTCDate(t.getTime());
                out.writeString("nanos");
                out.writeInt(t.getNanos());
                out.writeMapEnd();
            } else {
                if (ref == -1) {
                    out.writeInt(2);
                    out.writeString("value");
                    out.writeString("nanos");
                    out.writeObjectBegin(TIMESTAMP);
                }
                out.writeUTCDate(t.getTime());
                out.writeInt(t.getNanos());
            }
        }
    };

    static final Deserializer TIMESTAMP_READER = new AbstractDeserializer() {
        @Override
        public Class<?> getType() {
            return Timestamp.class;
        }

        @Override
        public Object readMap(AbstractHessianInput in) throws IOException {
            int ref = in.addRef(null);
            long time = Long.MIN_VALUE;
            int nanos = -1;
            while (!in.isEnd()) {
                String key = in.readString();
                if (key.equals("value")) {
                    time = in.readUTCDate();
                } else if (key.equals("nanos")) {
                    nanos = in.readInt();
                } else {
                    in.readObject();
                }
            }
            in.readMapEnd();
            Timestamp t = timestamp(time, nanos);
            in.setRef(ref, t);
            return t;
        }

        @Override
        public Object readObject(AbstractHessianInput in, Object[] fields) throws IOException {
            int ref = in.addRef(null);
            long time = Long.MIN_VALUE;
            int nanos = -1;
            for (Object f : fields) {
                if ("value".equals(f)) {
                    time = in.readUTCDate();
                } else if ("nanos".equals(f)) {
                    nanos = in.readInt();
                } else {
                    in.readObject();
                }
            }
            Timestamp t = timestamp(time, nanos);
            in.setRef(ref, t);
            return t;
        }

        private Timestamp timestamp(long time, int nanos) throws IOException {
            if (time == Long.MIN_VALUE) {
                throw new HessianProtocolException("java.sql.Timestamp without its value");
            }
            Timestamp t = new Timestamp(time);
            if (nanos >= 0) {
                if (nanos > 999_999_999) {
                    throw new HessianProtocolException("java.sql.Timestamp with nanos " + nanos);
                }
                t.setNanos(nanos);
            }
            return t;
        }
    };
}
