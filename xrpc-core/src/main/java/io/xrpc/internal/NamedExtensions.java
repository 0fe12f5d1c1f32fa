package io.xrpc.internal;

import io.xrpc.common.Extension;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Loads the implementations of one extension point with {@link ServiceLoader} and keeps, for each
 * name, the one of highest priority. A failed lookup lists the names it knows.
 *
 * @param <T> the extension type
 */
public final class NamedExtensions<T> {
    private final String kind;
    private final Map<String, T> byName;

    private NamedExtensions(String kind, Map<String, T> byName) {
        this.kind = kind;
        this.byName = byName;
    }

    /**
     * The extensions of {@code type} that {@link ServiceLoader} finds through {@link #loader()}:
     * the one class-loader rule of every extension point.
     */
    public static <T extends Extension> NamedExtensions<T> load(String kind, Class<T> type) {
        List<T> found = new ArrayList<>();
        ServiceLoader.load(type, loader()).forEach(found::add);
        return of(kind, found, Extension::name, Extension::priority);
    }

    /** The thread's context class loader, or XRpc's own when it has none. */
    public static ClassLoader loader() {
        ClassLoader l = Thread.currentThread().getContextClassLoader();
        return l != null ? l : NamedExtensions.class.getClassLoader();
    }

    public static <T> NamedExtensions<T> of(String kind, Collection<T> candidates,
                                            Function<T, String> name, ToIntFunction<T> priority) {
        Map<String, T> byName = new HashMap<>();
        for (T c : candidates) {
            byName.merge(name.apply(c), c, (a, b) -> priority.applyAsInt(b) > priority.applyAsInt(a) ? b : a);
        }
        return new NamedExtensions<>(kind, Map.copyOf(byName));
    }

    /** The extension called {@code name}; otherwise an error that lists what is available. */
    public T get(String name) {
        T t = byName.get(name);
        if (t == null) {
            throw new IllegalArgumentException(kind + ": " + name + " (expected one of " + names()
                    + ", found with ServiceLoader)");
        }
        return t;
    }

    /** The names there are, sorted. */
    public SortedSet<String> names() {
        return new TreeSet<>(byName.keySet());
    }

    public Collection<T> all() {
        return byName.values();
    }
}
