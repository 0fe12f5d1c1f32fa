package io.xrpc.internal;

import io.xrpc.common.RpcException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Carries an exception a service method declares from the provider to the caller, so that the
 * caller catches it as itself. The exception travels as a plain value any serializer carries (an
 * {@code Object[]} of its class name, message, the names and values of the fields its own classes
 * declare, its stack and its cause), never as the exception object: Kryo and Protostuff cannot
 * reach {@code Throwable}'s private fields on JDK 17 without {@code --add-opens}, and a peer must
 * not choose what gets constructed.
 *
 * <p>The caller rebuilds it only when its class is on the caller's allow-list and is (a subclass
 * of) a type the caller's interface method declares; a cause is rebuilt when its class is on the
 * allow-list, and otherwise stands in as an {@link RpcException} naming the remote class. No
 * constructor of the exception's own classes runs: like Java serialization, the instance is made
 * through the {@code (String, Throwable)} or {@code (String)} constructor of its nearest JDK
 * superclass (one the boot or platform loader defined), and its own fields are then set from the
 * values that came. What a peer sends is capped on reading as on writing.
 *
 * <p>A clause as broad as {@code throws Exception} (or {@code Throwable}, {@code RuntimeException},
 * {@code Error}) does not count as declaring: it would send the fields of whatever a library threw
 * (SQL text, response bodies) to every caller.
 */
public final class RemoteExceptions {
    /** Causes carried below the exception itself. */
    static final int MAX_CAUSES = 4;
    /** Stack frames carried for the exception itself and for each cause. */
    static final int MAX_FRAMES = 64;
    static final int MAX_CAUSE_FRAMES = 8;
    /** Longest message carried, in characters. */
    static final int MAX_MESSAGE = 2048;
    /** Most fields carried for one exception. */
    static final int MAX_FIELDS = 32;

    private static final int CLASS = 0;
    private static final int MESSAGE = 1;
    private static final int FIELD_NAMES = 2;
    private static final int FIELD_VALUES = 3;
    private static final int STACK = 4;
    private static final int CAUSE = 5;
    private static final int PARTS = 6;

    /** Too broad to declare anything. */
    private static final List<Class<?>> BROAD = List.of(Throwable.class, Exception.class, RuntimeException.class,
            Error.class);

    /** Per exception class, resolved once: its own fields and how to make one. */
    private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            return Shape.of(type);
        }
    };

    private RemoteExceptions() {
    }

    /** Whether {@code t} is an instance of one of {@code declared}, broad clauses left out. */
    public static boolean isDeclared(Throwable t, Class<?>[] declared) {
        return isAssignableToAny(t.getClass(), declared);
    }

    /**
     * The carried form of {@code t}, which must be {@linkplain #isDeclared declared}: the fields
     * of its own (non-JDK) classes travel, and those of each cause that is declared too.
     */
    public static Object[] describe(Throwable t, Class<?>[] declared) {
        return describe(t, declared, true);
    }

    /** As {@link #describe(Throwable, Class[])}; without {@code causes}, the chain below {@code t} stays here. */
    public static Object[] describe(Throwable t, Class<?>[] declared, boolean causes) {
        return describe(t, declared, 0, causes ? MAX_CAUSES : 0);
    }

    private static Object[] describe(Throwable t, Class<?>[] declared, int depth, int maxCauses) {
        Object[] v = new Object[PARTS];
        v[CLASS] = t.getClass().getName();
        v[MESSAGE] = cut(t.getMessage());
        if (isDeclared(t, declared)) {
            Field[] fields = SHAPES.get(t.getClass()).fields;
            List<String> names = new ArrayList<>(fields.length);
            List<Object> values = new ArrayList<>(fields.length);
            for (Field f : fields) {
                try {
                    Object value = f.get(t);
                    names.add(key(f));
                    values.add(value);
                } catch (RuntimeException | IllegalAccessException e) {
                    // not readable: the caller keeps that field's default
                }
            }
            if (!names.isEmpty()) {
                v[FIELD_NAMES] = names.toArray(new String[0]);
                v[FIELD_VALUES] = values.toArray();
            }
        }
        v[STACK] = frames(t.getStackTrace(), depth == 0 ? MAX_FRAMES : MAX_CAUSE_FRAMES);
        Throwable cause = t.getCause();
        if (cause != null && cause != t && depth < maxCauses) {
            v[CAUSE] = describe(cause, declared, depth + 1, maxCauses);
        }
        return v;
    }

    private static String[] frames(StackTraceElement[] stack, int max) {
        int frames = Math.min(stack.length, max);
        String[] s = new String[frames * 4];
        for (int i = 0; i < frames; i++) {
            s[4 * i] = stack[i].getClassName();
            s[4 * i + 1] = stack[i].getMethodName();
            s[4 * i + 2] = stack[i].getFileName();
            s[4 * i + 3] = Integer.toString(stack[i].getLineNumber());
        }
        return s;
    }

    /** A field by its declaring class and name, so that a subclass's field shadowing a parent's stays apart. */
    private static String key(Field f) {
        return f.getDeclaringClass().getName() + "." + f.getName();
    }

    private static String cut(String message) {
        return message != null && message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
    }

    /** Defined by the boot or platform loader: the JDK itself, not a library in a javax package. */
    private static boolean isJdk(Class<?> c) {
        ClassLoader l = c.getClassLoader();
        return l == null || l == ClassLoader.getPlatformClassLoader();
    }

    /**
     * Rebuilds what {@link #describe} wrote, or returns {@code null} when the exception may not be
     * rebuilt here (not allowed, not declared by {@code declared}, not a Throwable, not
     * constructible): the caller then gets an {@link RpcException} as for any other failure.
     *
     * @param allowed the caller's allow-list
     * @param loader  the loader of the service interface, which loads the exception's class
     */
    public static Throwable rebuild(Object value, Class<?>[] declared, Predicate<String> allowed, ClassLoader loader) {
        if (!(value instanceof Object[] v) || v.length != PARTS || !(v[CLASS] instanceof String name)) {
            return null;
        }
        Class<?> c = allowedThrowable(name, allowed, loader);
        if (c == null || !isAssignableToAny(c, declared)) {
            return null;
        }
        return instantiate(c, v, rebuildCause(v[CAUSE], allowed, loader, 1));
    }

    private static Throwable rebuildCause(Object value, Predicate<String> allowed, ClassLoader loader, int depth) {
        if (!(value instanceof Object[] v) || v.length != PARTS || !(v[CLASS] instanceof String name)
                || depth > MAX_CAUSES) {
            return null;
        }
        Throwable cause = rebuildCause(v[CAUSE], allowed, loader, depth + 1);
        Class<?> c = allowedThrowable(name, allowed, loader);
        Throwable t = c == null ? null : instantiate(c, v, cause);
        if (t == null) {
            String message = v[MESSAGE] instanceof String m ? cut(m) : null;
            t = new RpcException("remote " + name + (message != null ? ": " + message : ""), name, message,
                    stackText(v));
            if (cause != null) {
                t.initCause(cause);
            }
            t.setStackTrace(stack(v, MAX_CAUSE_FRAMES));
        }
        return t;
    }

    private static boolean isAssignableToAny(Class<?> c, Class<?>[] declared) {
        for (Class<?> d : declared) {
            if (d.isAssignableFrom(c) && !BROAD.contains(d)) {
                return true;
            }
        }
        return false;
    }

    private static Class<?> allowedThrowable(String name, Predicate<String> allowed, ClassLoader loader) {
        if (name.startsWith("[") || !allowed.test(name)) {
            return null;
        }
        try {
            Class<?> c = Class.forName(name, false, loader);
            return Throwable.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers()) ? c : null;
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static Throwable instantiate(Class<?> c, Object[] v, Throwable cause) {
        String message = v[MESSAGE] instanceof String m ? cut(m) : null;
        Shape shape;
        Throwable t;
        try {
            shape = SHAPES.get(c);
            if (shape.maker == null) {
                return null;
            }
            t = (Throwable) (shape.withCause ? shape.maker.newInstance(message, cause)
                    : shape.maker.newInstance(message));
            if (!shape.withCause && cause != null) {
                t.initCause(cause);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
        if (v[FIELD_NAMES] instanceof String[] names && v[FIELD_VALUES] instanceof Object[] values
                && names.length == values.length) {
            for (int i = 0; i < Math.min(names.length, MAX_FIELDS); i++) {
                for (Field f : shape.fields) {
                    if (key(f).equals(names[i])) {
                        set(t, f, values[i]);
                        break;
                    }
                }
            }
        }
        t.setStackTrace(stack(v, MAX_FRAMES));
        return t;
    }

    /** An exception class's own fields (accessible, up to its first JDK superclass) and its maker. */
    private static final class Shape {
        final Field[] fields;
        /** Makes an instance through the nearest JDK superclass's constructor; null when there is none. */
        final Constructor<?> maker;
        final boolean withCause;

        private Shape(Field[] fields, Constructor<?> maker, boolean withCause) {
            this.fields = fields;
            this.maker = maker;
            this.withCause = withCause;
        }

        static Shape of(Class<?> c) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> k = c; k != null && !isJdk(k); k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    int mod = f.getModifiers();
                    if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod) && !f.isSynthetic()
                            && fields.size() < MAX_FIELDS && f.trySetAccessible()) {
                        fields.add(f);
                    }
                }
            }
            Constructor<?> maker = null;
            boolean withCause = false;
            if (Throwable.class.isAssignableFrom(c)) {
                Class<?> base = c;
                while (!isJdk(base)) {
                    base = base.getSuperclass();
                }
                Constructor<?> target = publicConstructor(base, String.class, Throwable.class);
                withCause = target != null;
                if (target == null) {
                    target = publicConstructor(base, String.class);
                }
                if (target != null) {
                    try {
                        maker = c == base ? target : sun.reflect.ReflectionFactory.getReflectionFactory()
                                .newConstructorForSerialization(c, target);
                        if (maker != null && !maker.trySetAccessible()) {
                            maker = null;
                        }
                    } catch (RuntimeException | LinkageError e) {
                        maker = null; // not constructible here: the caller gets an RpcException
                    }
                }
            }
            return new Shape(fields.toArray(new Field[0]), maker, withCause);
        }
    }

    private static Constructor<?> publicConstructor(Class<?> c, Class<?>... types) {
        try {
            Constructor<?> k = c.getConstructor(types);
            return Modifier.isPublic(k.getModifiers()) ? k : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Sets a field from a carried value, widening what Hessian narrowed (it has no byte, short, float or char). */
    private static void set(Object target, Field f, Object value) {
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
            return; // a field of another shape (another version of the class): left as constructed
        }
        try {
            f.set(target, v);
        } catch (RuntimeException | IllegalAccessException e) {
            // a final field of a record or hidden class: it keeps its default
        }
    }

    /** The carried frames, at most {@code max} of them whatever the peer sent. */
    private static StackTraceElement[] stack(Object[] v, int max) {
        if (!(v[STACK] instanceof String[] s)) {
            return new StackTraceElement[0];
        }
        StackTraceElement[] frames = new StackTraceElement[Math.min(s.length / 4, max)];
        for (int i = 0; i < frames.length; i++) {
            int line;
            try {
                line = Integer.parseInt(String.valueOf(s[4 * i + 3]));
            } catch (NumberFormatException e) {
                line = -1;
            }
            frames[i] = new StackTraceElement(String.valueOf(s[4 * i]), String.valueOf(s[4 * i + 1]), s[4 * i + 2],
                    line);
        }
        return frames;
    }

    /** The carried exception printed as {@link Throwable#printStackTrace()} would, for an RpcException's text. */
    public static String stackText(Object value) {
        if (!(value instanceof Object[] v) || v.length != PARTS) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        Object[] e = v;
        for (int depth = 0; e != null && depth <= MAX_CAUSES; depth++) {
            b.append(depth == 0 ? "" : "Caused by: ").append(e[CLASS]);
            if (e[MESSAGE] instanceof String m) {
                b.append(": ").append(cut(m));
            }
            b.append('\n');
            for (StackTraceElement f : stack(e, depth == 0 ? MAX_FRAMES : MAX_CAUSE_FRAMES)) {
                b.append("\tat ").append(f).append('\n');
            }
            e = e[CAUSE] instanceof Object[] next && next.length == PARTS ? next : null;
        }
        return b.toString();
    }

    /**
     * {@code remote}'s own frames, then one naming the call, then the caller's: printed, the
     * exception shows where it was thrown on the provider and where the call was made.
     */
    public static void appendCallerStack(Throwable remote, String call) {
        StackTraceElement[] theirs = remote.getStackTrace();
        StackTraceElement[] ours = new Throwable().getStackTrace();
        StackTraceElement[] all = new StackTraceElement[theirs.length + 1 + ours.length];
        System.arraycopy(theirs, 0, all, 0, theirs.length);
        all[theirs.length] = new StackTraceElement("<xrpc>", "remote call " + call, null, -1);
        System.arraycopy(ours, 0, all, theirs.length + 1, ours.length);
        remote.setStackTrace(all);
    }
}
