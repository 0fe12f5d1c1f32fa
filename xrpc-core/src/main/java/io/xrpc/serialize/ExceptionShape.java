package io.xrpc.serialize;

import io.xrpc.internal.Types;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import sun.reflect.ReflectionFactory;

/** An exception class's own fields (accessible, up to its first JDK superclass) and its maker. */
final class ExceptionShape {
    final Field[] fields;
    /** Makes an instance through the nearest JDK superclass's constructor; null when there is none. */
    final Constructor<?> maker;

    final boolean withCause;

    private ExceptionShape(Field[] fields, Constructor<?> maker, boolean withCause) {
        this.fields = fields;
        this.maker = maker;
        this.withCause = withCause;
    }

    private static ExceptionShape make(Class<?> c) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> k = c; k != null && !RemoteExceptions.isJdk(k); k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod)
                        && !Modifier.isTransient(mod)
                        && !f.isSynthetic()
                        && fields.size() < RemoteExceptions.MAX_FIELDS
                        && f.trySetAccessible()) {
                    fields.add(f);
                }
            }
        }
        Constructor<?> maker = null;
        boolean withCause = false;
        if (Throwable.class.isAssignableFrom(c)) {
            Class<?> base = c;
            while (!RemoteExceptions.isJdk(base)) {
                base = base.getSuperclass();
            }
            Constructor<?> target = publicConstructor(base, String.class, Throwable.class);
            withCause = target != null;
            if (target == null) {
                target = publicConstructor(base, String.class);
            }
            if (target != null) {
                try {
                    maker = c == base
                            ? target
                            : ReflectionFactory.getReflectionFactory().newConstructorForSerialization(c, target);
                    if (maker != null && !maker.trySetAccessible()) {
                        maker = null;
                    }
                } catch (RuntimeException | LinkageError e) {
                    maker = null; // not constructible here: the caller gets an RpcException
                }
            }
        }
        return new ExceptionShape(fields.toArray(new Field[0]), maker, withCause);
    }

    /** The field {@link #key} names, or {@code null}. */
    Field field(String key) {
        for (Field f : fields) {
            if (RemoteExceptions.key(f).equals(key)) {
                return f;
            }
        }
        return null;
    }

    /** Per exception class, resolved once. */
    private static final ClassValue<ExceptionShape> SHAPES = new ClassValue<>() {
        @Override
        protected ExceptionShape computeValue(Class<?> type) {
            return make(type);
        }
    };

    /** The shape of {@code c}, resolved once per class. */
    static ExceptionShape of(Class<?> c) {
        return SHAPES.get(c);
    }

    private static Constructor<?> publicConstructor(Class<?> c, Class<?>... types) {
        try {
            Constructor<?> k = c.getConstructor(types);
            return Modifier.isPublic(k.getModifiers()) ? k : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /**
     * Sets a field from a carried value, widening what Hessian narrowed (it has no byte, short,
     * float or char); returns whether it was set.
     */
    static boolean set(Object target, Field f, Object value) {
        Class<?> type = Types.box(f.getType());
        Object v = value;
        if (v instanceof Number n && !type.isInstance(v)) {
            if (type == Short.class) {
                v = n.shortValue();
            } else if (type == Byte.class) {
                v = n.byteValue();
            } else if (type == Float.class) {
                v = n.floatValue();
            } else if (type == Integer.class) {
                v = n.intValue();
            } else if (type == Long.class) {
                v = n.longValue();
            }
        } else if (v instanceof String s && type == Character.class && s.length() == 1) {
            v = s.charAt(0);
        }
        if (v == null ? f.getType().isPrimitive() : !type.isInstance(v)) {
            return false; // left as constructed
        }
        try {
            f.set(target, v);
            return true;
        } catch (RuntimeException | IllegalAccessException e) {
            return false;
        }
    }
}
