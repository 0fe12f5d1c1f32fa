package io.xrpc.serialize;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Walks what a service interface's methods exchange (parameters, results and, recursively, the
 * fields of the application's own classes) and asks a serializer about each
 * concrete class ({@link Serializer#cannotCarry}), so that a type that would fail every call is
 * reported at export or reference time, naming the method, the type and the serializer.
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

    private TypeCheck() {
    }

    /** The problems, one sentence each; empty when {@code serializer} carries everything. */
    public static List<String> problems(Class<?> serviceInterface, Serializer serializer) {
        List<String> problems = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Method m : serviceInterface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.isDefault()) {
                continue;
            }
            List<Class<?>> found = new ArrayList<>();
            for (Type t : m.getGenericParameterTypes()) {
                collect(t, seen, found);
            }
            Type result = m.getGenericReturnType();
            if (m.getReturnType() == java.util.concurrent.CompletableFuture.class) {
                // what the future completes with travels, not the future
                result = result instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            }
            collect(result, seen, found);
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
    private static void collect(Type type, Set<Class<?>> seen, List<Class<?>> found) {
        if (type instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive() || c == Object.class || !seen.add(c)) {
                return;
            }
            if (!c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
                found.add(c);
            }
            if (c.isSealed()) {
                for (Class<?> p : c.getPermittedSubclasses()) {
                    collect(p, seen, found);
                }
            }
            String name = c.getName();
            if (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")) {
                return; // a JDK class is asked about, not walked into
            }
            for (Class<?> k = c; k != null && !k.getName().startsWith("java."); k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    int mod = f.getModifiers();
                    if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod)) {
                        collect(f.getGenericType(), seen, found);
                    }
                }
            }
        } else if (type instanceof ParameterizedType p) {
            collect(p.getRawType(), seen, found);
            for (Type a : p.getActualTypeArguments()) {
                collect(a, seen, found);
            }
        } else if (type instanceof GenericArrayType g) {
            collect(g.getGenericComponentType(), seen, found);
        } else if (type instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                collect(b, seen, found);
            }
        } else if (type instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                collect(b, seen, found);
            }
        }
    }
}
