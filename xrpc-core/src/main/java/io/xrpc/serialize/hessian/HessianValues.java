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

    private HessianValues() {
    }

    private static String digits(String value, String type) {
        if (value != null && value.length() > MAX_DIGITS) {
            throw new PayloadLimitException(type + " of " + value.length() + " characters (expected: at most "
                    + MAX_DIGITS + ")");
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

    static final Deserializer ENUM_SET_READER = new AbstractListDeserializer() {
        @Override
        public Class<?> getType() {
            return EnumSet.class;
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Object readLengthList(AbstractHessianInput in, int length) throws IOException {
            int ref = in.addRef(null);
            if (length < 1) {
                throw new HessianProtocolException("EnumSet without its element type");
            }
            Class type = enumClass(in);
            EnumSet set = EnumSet.noneOf(type);
            for (int i = 1; i < length; i++) {
                set.add(Enum.valueOf(type, in.readString()));
            }
            in.setRef(ref, set);
            return set;
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Object readList(AbstractHessianInput in, int length) throws IOException {
            int ref = in.addRef(null);
            if (in.isEnd()) {
                throw new HessianProtocolException("EnumSet without its element type");
            }
            Class type = enumClass(in);
            EnumSet set = EnumSet.noneOf(type);
            while (!in.isEnd()) {
                set.add(Enum.valueOf(type, in.readString()));
            }
            in.readEnd();
            in.setRef(ref, set);
            return set;
        }

        @Override
        public Object readList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return readList(in, length);
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return readLengthList(in, length);
        }

        private Class<?> enumClass(AbstractHessianInput in) throws IOException {
            String name = in.readString();
            return ((AllowListSerializerFactory) ((Hessian2Input) in).getSerializerFactory()).enumClass(name);
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

    static final Deserializer ENUM_MAP_READER = new AbstractListDeserializer() {
        @Override
        public Class<?> getType() {
            return EnumMap.class;
        }

        @Override
        public Object readLengthList(AbstractHessianInput in, int length) throws IOException {
            if (length < 1 || length % 2 == 0) {
                throw new HessianProtocolException("EnumMap of " + length + " parts (expected: its key type and"
                        + " pairs)");
            }
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

        @Override
        public Object readLengthList(AbstractHessianInput in, int length, Class<?> expectType) throws IOException {
            return readLengthList(in, length);
        }

        /** {@code length} parts, or up to the list's end when it is negative. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        private Object read(AbstractHessianInput in, int length) throws IOException {
            int ref = in.addRef(null);
            if (length < 0 && in.isEnd()) {
                throw new HessianProtocolException("EnumMap without its key type");
            }
            String name = in.readString();
            if (name == null) {
                throw new HessianProtocolException("EnumMap without its key type");
            }
            Class type = ((AllowListSerializerFactory) ((Hessian2Input) in).getSerializerFactory()).enumClass(name);
            EnumMap map = new EnumMap(type);
            for (int i = 1; length < 0 ? !in.isEnd() : i < length; i += 2) {
                String key = in.readString();
                Enum constant;
                try {
                    constant = Enum.valueOf(type, key);
                } catch (IllegalArgumentException | NullPointerException e) {
                    throw new HessianProtocolException("EnumMap keyed by " + name + " with key " + key
                            + ", which is not one of its constants");
                }
                map.put(constant, in.readObject());
            }
            if (length < 0) {
                in.readEnd();
            }
            in.setRef(ref, map);
            return map;
        }
    };

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
