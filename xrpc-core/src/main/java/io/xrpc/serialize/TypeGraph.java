package io.xrpc.serialize;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The classes a type reaches, as a payload can hold them: through generic arguments, array
 * components, bounds, the permitted subclasses of sealed types and, for the application's own
 * classes, the declared types of their non-static, non-transient fields up to their first JDK
 * superclass. JDK classes are visited but not walked into. The one walk behind the allow-list
 * ({@link ClassAllowList#allowTypesOf}) and the start-up check ({@link TypeCheck}).
 */
final class TypeGraph {
    private TypeGraph() {}

    /**
     * Calls {@code visitor} once for each class {@code type} reaches that is not in {@code seen}
     * (and adds it there): primitives, {@code Object} and JDK plumbing ({@code CompletableFuture},
     * {@code Class}, {@code Thread}, {@code ClassLoader}) are passed over; the application's own
     * superclasses of a class are visited with it, possibly more than once.
     */
    static void walk(Type type, Set<Class<?>> seen, Consumer<Class<?>> visitor) {
        if (type instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive() || c == Object.class || isJdkPlumbing(c) || !seen.add(c)) {
                return;
            }
            visitor.accept(c);
            if (c.isSealed()) {
                for (Class<?> permitted : c.getPermittedSubclasses()) {
                    walk(permitted, seen, visitor);
                }
            }
            if (isJdk(c.getName())) {
                return; // visited, not walked into
            }
            for (Class<?> k = c; k != null && !isJdk(k.getName()); k = k.getSuperclass()) {
                if (k != c) {
                    // Visited (perhaps again) but not marked seen: met in a signature of its own, a
                    // superclass is still walked whole (a sealed one's permitted subclasses too).
                    visitor.accept(k);
                }
                for (Field f : k.getDeclaredFields()) {
                    int mod = f.getModifiers();
                    if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod)) {
                        walk(f.getGenericType(), seen, visitor);
                    }
                }
            }
        } else if (type instanceof ParameterizedType p) {
            walk(p.getRawType(), seen, visitor);
            for (Type a : p.getActualTypeArguments()) {
                walk(a, seen, visitor);
            }
        } else if (type instanceof GenericArrayType g) {
            walk(g.getGenericComponentType(), seen, visitor);
        } else if (type instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                walk(b, seen, visitor);
            }
        } else if (type instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                walk(b, seen, visitor);
            }
        }
    }

    /** Whether {@code className} is the JDK's, by its package. */
    static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("javax.") || className.startsWith("jdk.");
    }

    /** JDK classes in signatures that say nothing about what a payload holds. */
    private static boolean isJdkPlumbing(Class<?> c) {
        return c == CompletableFuture.class || c == Class.class || c == Thread.class || c == ClassLoader.class;
    }
}
