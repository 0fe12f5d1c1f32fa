package io.xrpc.serialize.protostuff;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Pipe;
import io.protostuff.Schema;
import io.protostuff.WireFormat.FieldType;
import io.protostuff.runtime.DefaultIdStrategy;
import io.protostuff.runtime.Delegate;
import io.protostuff.runtime.RuntimeSchema;
import io.xrpc.internal.EnumTypes;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Delegates for JDK collections protostuff's runtime cannot carry on JDK 17 without
 * {@code --add-opens}: it reflects into {@code EnumSet.elementType} and {@code EnumMap.keyType},
 * and its schema for the {@code Collections} singletons and empties fails to initialise. Each
 * travels as a small message of its parts, read back through the guarded input like any other, and
 * an enum class named in it passes the allow-list before it is loaded.
 */
final class CollectionDelegates {
    private CollectionDelegates() {}

    static void registerAll(DefaultIdStrategy strategy, ClassAllowList allowList) {
        Schema<EnumParts> enumParts = RuntimeSchema.createFrom(EnumParts.class, strategy);
        Schema<Elements> elements = RuntimeSchema.createFrom(Elements.class, strategy);
        Delegate<?> enumSet = new EnumSetDelegate(enumParts, allowList);
        strategy.registerDelegate("java.util.RegularEnumSet", enumSet);
        strategy.registerDelegate("java.util.JumboEnumSet", enumSet);
        strategy.registerDelegate(new EnumMapDelegate(enumParts, allowList));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.emptyList().getClass(), elements, 0, 0, (v, k) -> Collections.emptyList()));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.emptySet().getClass(), elements, 0, 0, (v, k) -> Collections.emptySet()));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.emptyMap().getClass(), elements, 0, 0, (v, k) -> Collections.emptyMap()));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.singletonList(null).getClass(), elements, 1, 0, (v, k) -> Collections.singletonList(v[0])));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.singleton(null).getClass(), elements, 1, 0, (v, k) -> Collections.singleton(v[0])));
        strategy.registerDelegate(new ElementsDelegate(
                Collections.singletonMap(null, null).getClass(),
                elements,
                1,
                1,
                (v, k) -> Collections.singletonMap(k[0], v[0])));
    }

    /** An enum class by name, with the names of some of its constants and, for a map, a value each. */
    static final class EnumParts {
        String type;
        String[] names;
        Object[] values;
    }

    /** The elements (and for a map, the keys) of a collection. */
    static final class Elements {
        Object[] keys;
        Object[] values;
    }

    /** A delegate that travels as a message; pipes are not used. */
    abstract static class MessageDelegate<T> implements Delegate<T> {
        @Override
        public FieldType getFieldType() {
            return FieldType.MESSAGE;
        }

        @Override
        public void transfer(Pipe pipe, Input input, Output output, int number, boolean repeated) {
            throw new UnsupportedOperationException("pipes are not used");
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static Class<? extends Enum> enumClass(String name, ClassAllowList allowList) throws IOException {
        if (name == null) {
            throw new SerializationException("an enum collection without its enum class");
        }
        allowList.check(name);
        try {
            Class<?> c = Class.forName(name, false, Thread.currentThread().getContextClassLoader());
            if (!c.isEnum()) {
                throw new SerializationException(name + " is not an enum");
            }
            return (Class<? extends Enum>) c;
        } catch (ClassNotFoundException e) {
            throw new SerializationException("class " + name + " not found");
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class EnumSetDelegate extends MessageDelegate<EnumSet> {
        private final Schema<EnumParts> schema;
        private final ClassAllowList allowList;

        EnumSetDelegate(Schema<EnumParts> schema, ClassAllowList allowList) {
            this.schema = schema;
            this.allowList = allowList;
        }

        @Override
        public Class<?> typeClass() {
            return EnumSet.class;
        }

        @Override
        public void writeTo(Output output, int number, EnumSet value, boolean repeated) throws IOException {
            EnumParts p = new EnumParts();
            p.type = EnumTypes.elementType(value).getName();
            p.names = new String[value.size()];
            int i = 0;
            for (Object e : value) {
                p.names[i++] = ((Enum) e).name();
            }
            output.writeObject(number, p, schema, repeated);
        }

        @Override
        public EnumSet readFrom(Input input) throws IOException {
            EnumParts p = input.mergeObject(null, schema);
            Class<? extends Enum> type = enumClass(p.type, allowList);
            EnumSet set = EnumSet.noneOf(type);
            if (p.names != null) {
                for (String n : p.names) {
                    set.add(Enum.valueOf(type, n));
                }
            }
            return set;
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class EnumMapDelegate extends MessageDelegate<EnumMap> {
        private final Schema<EnumParts> schema;
        private final ClassAllowList allowList;

        EnumMapDelegate(Schema<EnumParts> schema, ClassAllowList allowList) {
            this.schema = schema;
            this.allowList = allowList;
        }

        @Override
        public Class<?> typeClass() {
            return EnumMap.class;
        }

        @Override
        public void writeTo(Output output, int number, EnumMap value, boolean repeated) throws IOException {
            EnumParts p = new EnumParts();
            p.type = EnumTypes.keyType(value).getName();
            p.names = new String[value.size()];
            p.values = new Object[value.size()];
            int i = 0;
            for (Object o : value.entrySet()) {
                Map.Entry e = (Map.Entry) o;
                p.names[i] = ((Enum) e.getKey()).name();
                p.values[i++] = e.getValue();
            }
            output.writeObject(number, p, schema, repeated);
        }

        @Override
        public EnumMap readFrom(Input input) throws IOException {
            EnumParts p = input.mergeObject(null, schema);
            Class<? extends Enum> type = enumClass(p.type, allowList);
            EnumMap map = new EnumMap(type);
            int n = p.names == null ? 0 : p.names.length;
            if ((p.values == null ? 0 : p.values.length) != n) {
                throw new SerializationException(
                        "an EnumMap with " + n + " keys and " + (p.values == null ? 0 : p.values.length) + " values");
            }
            for (int i = 0; i < n; i++) {
                map.put(Enum.valueOf(type, p.names[i]), p.values[i]);
            }
            return map;
        }
    }

    /** One of the {@code Collections} singletons and empties, with its fixed number of elements. */
    private static final class ElementsDelegate extends MessageDelegate<Object> {
        private final Class<?> type;
        private final Schema<Elements> schema;
        private final int values;
        private final int keys;
        /** Builds the collection from its values and keys. */
        private final BiFunction<Object[], Object[], Object> build;

        ElementsDelegate(
                Class<?> type,
                Schema<Elements> schema,
                int values,
                int keys,
                BiFunction<Object[], Object[], Object> build) {
            this.type = type;
            this.schema = schema;
            this.values = values;
            this.keys = keys;
            this.build = build;
        }

        @Override
        public Class<?> typeClass() {
            return type;
        }

        @Override
        public void writeTo(Output output, int number, Object value, boolean repeated) throws IOException {
            Elements e = new Elements();
            if (value instanceof Map<?, ?> m) {
                e.keys = m.keySet().toArray();
                e.values = m.values().toArray();
            } else {
                e.values = ((Collection<?>) value).toArray();
            }
            output.writeObject(number, e, schema, repeated);
        }

        @Override
        public Object readFrom(Input input) throws IOException {
            Elements e = input.mergeObject(null, schema);
            Object[] v = e.values == null ? new Object[0] : e.values;
            Object[] k = e.keys == null ? new Object[0] : e.keys;
            if (v.length != values || k.length != keys) {
                throw new SerializationException(type.getName() + " with " + v.length + " values and " + k.length
                        + " keys (expected: " + values + " and " + keys + ")");
            }
            return build.apply(v, k);
        }
    }
}
