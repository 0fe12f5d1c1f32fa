package io.xrpc.internal;

import io.xrpc.common.RpcException;
import io.xrpc.serialize.ClassAllowList;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

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
 * through the constructor of its nearest JDK superclass ({@code Exception(String, Throwable)} and
 * the like), and its own fields are then set from the values that came.
 */
public final class RemoteExceptions {
    /** Causes carried below the exception itself. */
    static final int MAX_CAUSES = 4;
    /** Stack frames carried for the exception itself and for each cause. */
    static final int MAX_FRAMES = 64;
    static final int MAX_CAUSE_FRAMES = 8;
    /** Longest message carried, in characters. */
    static final int MAX_MESSAGE = 2048;

    private static final int CLASS = 0;
    private static final int MESSAGE = 1;
    private static final int FIELD_NAMES = 2;
    private static final int FIELD_VALUES = 3;
    private static final int STACK = 4;
    private static final int CAUSE = 5;
    private static final int PARTS = 6;

    private RemoteExceptions() {
    }

    /** Whether {@code t} is an instance of one of {@code declared}. */
    public static boolean isDeclared(Throwable t, Class<?>[] declared) {
        for (Class<?> d : declared) {
            if (d.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The carried form of {@code t}, which must be {@linkplain #isDeclared declared}: the fields
     * of its own (non-JDK) classes travel, and those of each cause that is declared too.
     */
    public static Object[] describe(Throwable t, Class<?>[] declared) {
        return describe(t, declared, 0);
    }

    private static Object[] describe(Throwable t, Class<?>[] declared, int depth) {
        Object[] v = new Object[PARTS];
        v[CLASS] = t.getClass().getName();
        String message = t.getMessage();
        v[MESSAGE] = message != null && message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
        if (isDeclared(t, declared)) {
            List<String> names = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            for (Field f : ownFields(t.getClass())) {
                try {
                    f.setAccessible(true);
                    Object value = f.get(t);
                    names.add(f.getName());
                    values.add(value);
                } catch (RuntimeException | IllegalAccessException e) {
                    // a module that is not open to us keeps its fields
                }
            }
            if (!names.isEmpty()) {
                v[FIELD_NAMES] = names.toArray(new String[0]);
                v[FIELD_VALUES] = values.toArray();
            }
        }
        StackTraceElement[] stack = t.getStackTrace();
        int frames = Math.min(stack.length, depth == 0 ? MAX_FRAMES : MAX_CAUSE_FRAMES);
        String[] s = new String[frames * 4];
        for (int i = 0; i < frames; i++) {
            s[4 * i] = stack[i].getClassName();
            s[4 * i + 1] = stack[i].getMethodName();
            s[4 * i + 2] = stack[i].getFileName();
            s[4 * i + 3] = Integer.toString(stack[i].getLineNumber());
        }
        v[STACK] = s;
        Throwable cause = t.getCause();
        if (cause != null && cause != t && depth < MAX_CAUSES) {
            v[CAUSE] = describe(cause, declared, depth + 1);
        }
        return v;
    }

    /** The non-static, non-transient fields of {@code c} and its superclasses below the first JDK one. */
    private static List<Field> ownFields(Class<?> c) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> k = c; k != null && !isJdk(k); k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod) && !f.isSynthetic()) {
                    fields.add(f);
                }
            }
        }
        return fields;
    }

    private static boolean isJdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.");
    }

    /**
     * Rebuilds what {@link #describe} wrote, or returns {@code null} when the exception may not be
     * rebuilt here (not allowed, not declared by {@code declared}, not a Throwable, not
     * constructible): the caller then gets an {@link RpcException} as for any other failure.
     *
     * @param loader the loader of the service interface, which loads the exception's class
     */
    public static Throwable rebuild(Object value, Class<?>[] declared, ClassAllowList allowList, ClassLoader loader) {
        if (!(value instanceof Object[] v) || v.length != PARTS || !(v[CLASS] instanceof String)) {
            return null;
        }
        Throwable cause = rebuildCause(v[CAUSE], allowList, loader, 1);
        Class<?> c = allowedThrowable((String) v[CLASS], allowList, loader);
        if (c == null || !isAssignableToAny(c, declared)) {
            return null;
        }
        return instantiate(c, v, cause);
    }

    private static Throwable rebuildCause(Object value, ClassAllowList allowList, ClassLoader loader, int depth) {
        if (!(value instanceof Object[] v) || v.length != PARTS || !(v[CLASS] instanceof String name)
                || depth > MAX_CAUSES) {
            return null;
        }
        Throwable cause = rebuildCause(v[CAUSE], allowList, loader, depth + 1);
        Class<?> c = allowedThrowable(name, allowList, loader);
        Throwable t = c == null ? null : instantiate(c, v, cause);
        if (t == null) {
            String message = v[MESSAGE] instanceof String m ? m : null;
            t = new RpcException("remote " + name + (message != null ? ": " + message : ""), name, message,
                    stackText(v));
            if (cause != null) {
                t.initCause(cause);
            }
            t.setStackTrace(stack(v));
        }
        return t;
    }

    private static boolean isAssignableToAny(Class<?> c, Class<?>[] declared) {
        for (Class<?> d : declared) {
            if (d.isAssignableFrom(c)) {
                return true;
            }
        }
        return false;
    }

    private static Class<?> allowedThrowable(String name, ClassAllowList allowList, ClassLoader loader) {
        if (!allowList.isAllowed(name) || name.startsWith("[")) {
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
        String message = v[MESSAGE] instanceof String m ? m : null;
        Throwable t;
        try {
            t = construct(c, message, cause);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
        if (t == null) {
            return null;
        }
        if (v[FIELD_NAMES] instanceof String[] names && v[FIELD_VALUES] instanceof Object[] values
                && names.length == values.length) {
            List<Field> fields = ownFields(c);
            for (int i = 0; i < names.length; i++) {
                for (Field f : fields) {
                    if (f.getName().equals(names[i])) {
                        set(t, f, values[i]);
                        break;
                    }
                }
            }
        }
        t.setStackTrace(stack(v));
        return t;
    }

    /**
     * A new {@code c} made through its nearest JDK superclass's {@code (String, Throwable)} or
     * {@code (String)} constructor; none of {@code c}'s own constructors runs.
     */
    private static Throwable construct(Class<?> c, String message, Throwable cause)
            throws ReflectiveOperationException {
        Class<?> base = c;
        while (!isJdk(base)) {
            base = base.getSuperclass();
        }
        Constructor<?> withCause = publicConstructor(base, String.class, Throwable.class);
        Constructor<?> plain = withCause != null ? null : publicConstructor(base, String.class);
        Constructor<?> target = withCause != null ? withCause : plain;
        if (target == null) {
            return null;
        }
        Constructor<?> k = c == base ? target
                : sun.reflect.ReflectionFactory.getReflectionFactory().newConstructorForSerialization(c, target);
        if (k == null) {
            return null;
        }
        k.setAccessible(true);
        Throwable t = (Throwable) (withCause != null ? k.newInstance(message, cause) : k.newInstance(message));
        if (withCause == null && cause != null) {
            t.initCause(cause);
        }
        return t;
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
            f.setAccessible(true);
            f.set(target, v);
        } catch (RuntimeException | IllegalAccessException e) {
            // a module that is not open to us: the field keeps its default
        }
    }

    private static StackTraceElement[] stack(Object[] v) {
        if (!(v[STACK] instanceof String[] s)) {
            return new StackTraceElement[0];
        }
        StackTraceElement[] frames = new StackTraceElement[s.length / 4];
        for (int i = 0; i < frames.length; i++) {
            int line;
            try {
                line = Integer.parseInt(s[4 * i + 3]);
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
            if (e[MESSAGE] != null) {
                b.append(": ").append(e[MESSAGE]);
            }
            b.append('\n');
            for (StackTraceElement f : stack(e)) {
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
