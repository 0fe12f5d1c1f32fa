package io.xrpc.internal;

/** Type helpers shared by the server's argument checks and the serializers' readers. */
public final class Types {
    private Types() {}

    /** The wrapper class of a primitive type ({@code Void} for {@code void}); any other class itself. */
    public static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) {
            return Integer.class;
        }
        if (c == long.class) {
            return Long.class;
        }
        if (c == boolean.class) {
            return Boolean.class;
        }
        if (c == double.class) {
            return Double.class;
        }
        if (c == float.class) {
            return Float.class;
        }
        if (c == short.class) {
            return Short.class;
        }
        if (c == byte.class) {
            return Byte.class;
        }
        if (c == char.class) {
            return Character.class;
        }
        return Void.class;
    }
}
