package io.xrpc.internal;

import io.xrpc.common.Extension;
import java.security.CodeSource;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the implementations of one extension point with {@link ServiceLoader} and keeps, for each
 * name, the one of highest priority, logging which replaced which. Two of one name and one priority
 * stop start-up naming both: before, an application's serializer named {@code json} silently lost
 * to the built-in one, or won, as the class path's order had it. A failed lookup lists the names
 * it knows.
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

    public static <T> NamedExtensions<T> of(
            String kind, Collection<T> candidates, Function<T, String> name, ToIntFunction<T> priority) {
        Map<String, T> byName = new HashMap<>();
        for (T c : candidates) {
            String n = name.apply(c);
            T other = byName.get(n);
            if (other == null) {
                byName.put(n, c);
                continue;
            }
            int pc = priority.applyAsInt(c);
            int po = priority.applyAsInt(other);
            if (pc == po) {
                throw new IllegalStateException(kind + " '" + n + "' is provided by both " + describe(other)
                        + " and " + describe(c) + " at priority " + pc + ": rename one, remove one, or give the one to"
                        + " use a higher priority()");
            }
            T winner = pc > po ? c : other;
            T loser = pc > po ? other : c;
            byName.put(n, winner);
            log.warn(
                    "{} '{}': {} (priority {}) is used in place of {} (priority {})",
                    kind,
                    n,
                    describe(winner),
                    Math.max(pc, po),
                    describe(loser),
                    Math.min(pc, po));
        }
        return new NamedExtensions<>(kind, Map.copyOf(byName));
    }

    private static final Logger log = LoggerFactory.getLogger(NamedExtensions.class);

    /** An extension's class and where it was loaded from, so that two of one name can be told apart. */
    public static String describe(Object extension) {
        Class<?> c = extension.getClass();
        String from = null;
        try {
            CodeSource source = c.getProtectionDomain().getCodeSource();
            if (source != null && source.getLocation() != null) {
                from = source.getLocation().toString();
            }
        } catch (SecurityException e) {
            // no location to name
        }
        return c.getName() + (from == null ? "" : " (from " + from + ")");
    }

    /** The extension called {@code name}; otherwise an error that lists what is available. */
    public T get(String name) {
        T t = byName.get(name);
        if (t == null) {
            throw new IllegalArgumentException(
                    kind + ": " + name + " (expected one of " + names() + ", found with ServiceLoader)");
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
