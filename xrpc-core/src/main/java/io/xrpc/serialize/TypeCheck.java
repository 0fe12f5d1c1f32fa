package io.xrpc.serialize;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Walks what a service interface's methods exchange (parameters, results and, recursively, the
 * fields of the application's own classes; for a method that declares exceptions, the
 * {@link ExceptionValue} they travel in and the types of the fields of theirs that travel) and asks
 * a serializer about each concrete class ({@link Serializer#cannotCarry}), so that a type that would
 * fail every call is reported at export or reference time, naming the method, the type and the
 * serializer.
 */
public final class TypeCheck {

    /** What to do when a serializer in use cannot carry a type an interface exchanges. */
    public enum Mode {
        /** Refuse to export or reference (the default): the problem surfaces at start-up. */
        FAIL,
        /** Log a warning naming each problem and go on; calls that carry the type fail. */
        WARN,
        /** Do not look. */
        OFF
    }

    private TypeCheck() {}

    /**
     * An export or reference refused because its serializer cannot carry a type it exchanges
     * ({@link Mode#FAIL}); the message names the method, the type and the serializer.
     */
    public static final class UnsupportedTypeException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public UnsupportedTypeException(String message) {
            super(message);
        }
    }

    /** The problems, one sentence each; empty when {@code serializer} carries everything. */
    public static List<String> problems(Class<?> serviceInterface, Serializer serializer) {
        List<String> problems = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Method m : serviceInterface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.isDefault()) {
                continue;
            }
            Set<Class<?>> found = new LinkedHashSet<>();
            for (Type t : m.getGenericParameterTypes()) {
                collect(t, seen, found);
            }
            collect(m.getGenericReturnType(), seen, found); // a future's type argument, not the future
            for (Class<?> e : m.getExceptionTypes()) {
                if (!RemoteExceptions.isBroad(e)) {
                    if (seen.add(ExceptionValue.class)) {
                        found.add(ExceptionValue.class);
                    }
                    for (Type t : RemoteExceptions.carriedFieldTypes(e)) {
                        collect(t, seen, found);
                    }
                }
            }
            for (Class<?> c : found) {
                String why;
                try {
                    why = serializer.cannotCarry(c);
                } catch (RuntimeException | LinkageError e) {
                    why = e.toString();
                }
                if (why != null) {
                    problems.add(serializer.name() + " cannot carry " + c.getName() + ", which "
                            + serviceInterface.getName() + "#" + m.getName() + " exchanges: " + why);
                }
            }
        }
        return problems;
    }

    /** The concrete classes {@code type} reaches that were not seen before, in the order met. */
    private static void collect(Type type, Set<Class<?>> seen, Set<Class<?>> found) {
        TypeGraph.walk(type, seen, c -> {
            if (!c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
                found.add(c);
            }
        });
    }
}
