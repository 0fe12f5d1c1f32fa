package io.xrpc.serialize;

import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.LogLimiter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries an exception a service method declares from the provider to the caller, so that the
 * caller catches it as itself. The exception travels as an {@link ExceptionValue} (its class name,
 * message, the fields its own classes declare, its stack and its cause), never as the exception
 * object: Kryo and Protostuff cannot reach {@code Throwable}'s private fields on JDK 17 without
 * {@code --add-opens}, and a peer must not choose what gets constructed. The fields travel as the
 * call's serializer writes arguments and are read with the caller's declared field types, so a
 * custom serializer carries them exactly when it carries those types as arguments; a field that
 * does not arrive is named in a suppressed exception on the rebuilt one and in a warning, never
 * dropped without a word.
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
    private static final Logger log = LoggerFactory.getLogger(RemoteExceptions.class);
    private static final LogLimiter lossLog = new LogLimiter(log, "declared-exception fields not carried");
    /** Causes carried below the exception itself. */
    static final int MAX_CAUSES = 4;
    /** Stack frames carried for the exception itself and for each cause. */
    static final int MAX_FRAMES = 64;

    static final int MAX_CAUSE_FRAMES = 8;
    /** Longest message carried, in characters. */
    static final int MAX_MESSAGE = 2048;
    /** Most fields carried for one exception. */
    static final int MAX_FIELDS = 32;
    /** Most bytes of one exception's field values: what is left of a 16 KiB error answer, roughly. */
    static final int MAX_FIELD_BYTES = 12 * 1024;

    /** Too broad to declare anything. */
    private static final List<Class<?>> BROAD =
            List.of(Throwable.class, Exception.class, RuntimeException.class, Error.class);

    private RemoteExceptions() {}

    /** Whether {@code t} is an instance of one of {@code declared}, broad clauses left out. */
    public static boolean isDeclared(Throwable t, Class<?>[] declared) {
        return isAssignableToAny(t.getClass(), declared);
    }

    /**
     * The carried form of {@code t}, which must be {@linkplain #isDeclared declared}: the fields
     * of its own (non-JDK) classes travel, written with {@code serializer}, and those of each cause
     * that is declared too; without {@code causes}, the chain below {@code t} stays here.
     *
     * @throws SerializationException when {@code serializer} cannot write a field's value; the
     *                                message names the field and the serializer
     */
    public static ExceptionValue describe(Throwable t, Class<?>[] declared, boolean causes, Serializer serializer)
            throws SerializationException {
        return describe(t, declared, 0, causes ? MAX_CAUSES : 0, serializer);
    }

    private static ExceptionValue describe(
            Throwable t, Class<?>[] declared, int depth, int maxCauses, Serializer serializer)
            throws SerializationException {
        String[] fieldNames = null;
        byte[] fieldValues = null;
        if (isDeclared(t, declared)) {
            Field[] fields = ExceptionShape.of(t.getClass()).fields;
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
                fieldNames = names.toArray(new String[0]);
                ByteArrayOutputStream out = new ByteArrayOutputStream(64 * fieldNames.length) {
                    @Override
                    public void write(byte[] b, int off, int len) {
                        room(len);
                        super.write(b, off, len);
                    }

                    @Override
                    public void write(int b) {
                        room(1);
                        super.write(b);
                    }

                    private void room(int len) {
                        if (count + len > MAX_FIELD_BYTES) {
                            throw new IllegalStateException(
                                    "they take more than the " + MAX_FIELD_BYTES + " bytes an error answer can carry");
                        }
                    }
                };
                try {
                    serializer.writeArguments(values.toArray(), out);
                } catch (IOException | RuntimeException e) {
                    throw new SerializationException(
                            serializer.name() + " cannot write the fields " + names + " of "
                                    + t.getClass().getName() + ": " + e.getMessage(),
                            e);
                }
                fieldValues = out.toByteArray();
            }
        }
        Throwable cause = t.getCause();
        ExceptionValue carriedCause = cause != null && cause != t && depth < maxCauses
                ? describe(cause, declared, depth + 1, maxCauses, serializer)
                : null;
        return new ExceptionValue(
                t.getClass().getName(),
                cut(t.getMessage()),
                fieldNames,
                fieldValues,
                frames(t.getStackTrace(), depth == 0 ? MAX_FRAMES : MAX_CAUSE_FRAMES),
                carriedCause);
    }

    /**
     * The declared types of the fields {@link #describe} carries for an exception of class
     * {@code type}, which a serializer must carry as arguments ({@link TypeCheck} asks).
     */
    static List<Type> carriedFieldTypes(Class<?> type) {
        List<Type> types = new ArrayList<>();
        for (Field f : ExceptionShape.of(type).fields) {
            types.add(f.getGenericType());
        }
        return types;
    }

    /**
     * The fields {@link #describe} carries for an exception of class {@code type}, in the order
     * their values travel (a derived protobuf contract numbers them so).
     */
    public static List<Field> carriedFields(Class<?> type) {
        return List.of(ExceptionShape.of(type).fields);
    }

    /**
     * The line that heads the text stack of an answer which carries a declared exception as text
     * only, saying why: the caller then knows it is not a bug of its own that it got an
     * {@code RpcException} instead.
     */
    public static String notCarried(String why) {
        return "(the declared exception was not carried as itself: " + why + ")\n";
    }

    /** Whether {@code c} is a clause too broad to declare anything ({@code throws Exception}). */
    public static boolean isBroad(Class<?> c) {
        return BROAD.contains(c);
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
    static String key(Field f) {
        return f.getDeclaringClass().getName() + "." + f.getName();
    }

    private static String cut(String message) {
        return message != null && message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
    }

    /** Defined by the boot or platform loader: the JDK itself, not a library in a javax package. */
    static boolean isJdk(Class<?> c) {
        ClassLoader l = c.getClassLoader();
        return l == null || l == ClassLoader.getPlatformClassLoader();
    }

    /**
     * Rebuilds what {@link #describe} wrote, or returns {@code null} when the exception may not be
     * rebuilt here (not allowed, not declared by {@code declared}, not a Throwable, not
     * constructible): the caller then gets an {@link RpcException} as for any other failure.
     *
     * @param allowed    the caller's allow-list
     * @param loader     the loader of the service interface, which loads the exception's class
     * @param serializer the call's serializer, which reads the fields
     * @param deadlineNanos as for {@link Serializer#readArguments}
     */
    public static Throwable rebuild(
            ExceptionValue v,
            Class<?>[] declared,
            Predicate<String> allowed,
            ClassLoader loader,
            Serializer serializer,
            long deadlineNanos) {
        if (v == null || v.className() == null) {
            return null;
        }
        Class<?> c = allowedThrowable(v.className(), allowed, loader);
        if (c == null || !isAssignableToAny(c, declared)) {
            return null;
        }
        return instantiate(
                c,
                v,
                rebuildCause(v.cause(), allowed, loader, 1, serializer, deadlineNanos),
                serializer,
                deadlineNanos);
    }

    private static Throwable rebuildCause(
            ExceptionValue v,
            Predicate<String> allowed,
            ClassLoader loader,
            int depth,
            Serializer serializer,
            long deadlineNanos) {
        if (v == null || v.className() == null || depth > MAX_CAUSES) {
            return null;
        }
        Throwable cause = rebuildCause(v.cause(), allowed, loader, depth + 1, serializer, deadlineNanos);
        Class<?> c = allowedThrowable(v.className(), allowed, loader);
        Throwable t = c == null ? null : instantiate(c, v, cause, serializer, deadlineNanos);
        if (t == null) {
            String message = cut(v.message());
            t = new RpcException(
                    "remote " + v.className() + (message != null ? ": " + message : ""),
                    v.className(),
                    message,
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

    private static Throwable instantiate(
            Class<?> c, ExceptionValue v, Throwable cause, Serializer serializer, long deadlineNanos) {
        String message = cut(v.message());
        ExceptionShape shape;
        Throwable t;
        try {
            shape = ExceptionShape.of(c);
            if (shape.maker == null) {
                return null;
            }
            t = (Throwable)
                    (shape.withCause ? shape.maker.newInstance(message, cause) : shape.maker.newInstance(message));
            if (!shape.withCause && cause != null) {
                t.initCause(cause);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
        setFields(t, shape, v, serializer, deadlineNanos);
        t.setStackTrace(stack(v, MAX_FRAMES));
        return t;
    }

    /**
     * Sets {@code t}'s fields from the carried values, read with the declared types of its own
     * fields (a name this copy of the class does not have is read as an {@code Object} and left
     * out). What does not arrive is added to {@code t} as a suppressed exception naming the field
     * and the serializer, and logged.
     */
    private static void setFields(
            Throwable t, ExceptionShape shape, ExceptionValue v, Serializer serializer, long deadlineNanos) {
        String[] names = v.fieldNames();
        if (names == null || v.fieldValues() == null) {
            return;
        }
        String problem = null;
        if (names.length > MAX_FIELDS) {
            problem = names.length + " fields came (at most " + MAX_FIELDS + " are read)";
        } else {
            Field[] fields = new Field[names.length];
            Class<?>[] types = new Class<?>[names.length];
            for (int i = 0; i < names.length; i++) {
                fields[i] = shape.field(names[i]);
                types[i] = fields[i] != null ? fields[i].getType() : Object.class;
            }
            Object[] values;
            try {
                values = serializer.readArguments(new ByteArrayInputStream(v.fieldValues()), types, deadlineNanos);
            } catch (IOException | RuntimeException e) {
                values = null;
                problem = "its fields could not be read: " + e;
            }
            if (values != null) {
                List<String> lost = new ArrayList<>();
                for (int i = 0; i < fields.length && i < values.length; i++) {
                    if (fields[i] != null && !ExceptionShape.set(t, fields[i], values[i])) {
                        lost.add(
                                fields[i].getName() + " (" + fields[i].getType().getTypeName() + ", came as "
                                        + (values[i] == null
                                                ? "null"
                                                : values[i].getClass().getName()) + ")");
                    }
                }
                if (!lost.isEmpty()) {
                    problem = "fields not set: " + String.join(", ", lost);
                }
            }
        }
        if (problem != null) {
            String text = serializer.name() + " did not carry all of remote "
                    + t.getClass().getName() + ": " + problem;
            t.addSuppressed(new RpcException(RpcStatus.SERIALIZATION_ERROR, text));
            lossLog.warn("{}", text);
        }
    }

    /** The carried frames, at most 64 whatever the peer sent: the remote stack of a caller that cannot rebuild the class. */
    public static StackTraceElement[] stackOf(ExceptionValue v) {
        return stack(v, MAX_FRAMES);
    }

    /** The carried frames, at most {@code max} of them whatever the peer sent. */
    private static StackTraceElement[] stack(ExceptionValue v, int max) {
        String[] s = v.stack();
        if (s == null) {
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
            frames[i] =
                    new StackTraceElement(String.valueOf(s[4 * i]), String.valueOf(s[4 * i + 1]), s[4 * i + 2], line);
        }
        return frames;
    }

    /** The carried exception printed as {@link Throwable#printStackTrace()} would, for an RpcException's text. */
    public static String stackText(ExceptionValue value) {
        if (value == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        ExceptionValue e = value;
        for (int depth = 0; e != null && depth <= MAX_CAUSES; depth++) {
            b.append(depth == 0 ? "" : "Caused by: ").append(e.className());
            if (e.message() != null) {
                b.append(": ").append(cut(e.message()));
            }
            b.append('\n');
            for (StackTraceElement f : stack(e, depth == 0 ? MAX_FRAMES : MAX_CAUSE_FRAMES)) {
                b.append("\tat ").append(f).append('\n');
            }
            e = e.cause();
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
