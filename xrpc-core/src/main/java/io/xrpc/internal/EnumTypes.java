package io.xrpc.internal;

import java.lang.reflect.Field;
import java.util.EnumMap;
import java.util.EnumSet;

/**
 * The enum class of an {@link EnumSet} or {@link EnumMap}, which serializers must write so the
 * receiver can rebuild one, and which the JDK keeps in private fields. A non-empty one tells
 * through its elements, an empty set through its complement; only an empty map needs to read the
 * private field, through {@code sun.misc.Unsafe} (as Kryo, Hessian and Protostuff themselves do),
 * since {@code java.util} is not open to reflection.
 */
public final class EnumTypes {
    private EnumTypes() {}

    /** The enum class of {@code set}'s elements. */
    public static Class<?> elementType(EnumSet<?> set) {
        EnumSet<?> some = set.isEmpty() ? EnumSet.complementOf(set) : set;
        if (!some.isEmpty()) {
            return some.iterator().next().getDeclaringClass();
        }
        return (Class<?>) Fields.ENUM_SET_TYPE.get(set); // an enum without constants
    }

    /** The enum class of {@code map}'s keys. */
    public static Class<?> keyType(EnumMap<?, ?> map) {
        if (!map.isEmpty()) {
            return map.keySet().iterator().next().getDeclaringClass();
        }
        return (Class<?>) Fields.ENUM_MAP_TYPE.get(map);
    }

    /** Loaded only when an empty map (or a set of an enum without constants) is written. */
    private static final class Fields {
        static final PrivateField ENUM_SET_TYPE = new PrivateField(EnumSet.class, "elementType");
        static final PrivateField ENUM_MAP_TYPE = new PrivateField(EnumMap.class, "keyType");
    }

    private static final class PrivateField {
        private static final sun.misc.Unsafe UNSAFE = unsafe();
        private final long offset;

        PrivateField(Class<?> owner, String name) {
            try {
                Field f = owner.getDeclaredField(name);
                this.offset = UNSAFE.objectFieldOffset(f);
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("this JDK's " + owner.getName() + " has no field " + name, e);
            }
        }

        Object get(Object o) {
            return UNSAFE.getObject(o, offset);
        }

        private static sun.misc.Unsafe unsafe() {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                return (sun.misc.Unsafe) f.get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("sun.misc.Unsafe is not available", e);
            }
        }
    }
}
