package io.xrpc.serialize;

import io.xrpc.internal.NamedExtensions;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The classes a serializer may construct when it reads a payload. Anything else is refused with
 * {@link ClassNotAllowedException} before the class is even loaded: that is what stops a peer from
 * naming a gadget class (a {@code java.net.URL}, a template engine, a JNDI lookup) in its payload.
 *
 * <p>It starts with safe JDK value types: boxes, {@code String}, {@code BigDecimal},
 * {@code BigInteger}, {@code java.time}, {@code UUID}, {@code Date} and the common {@code java.util}
 * collections. Exporting or referencing an interface adds its parameter and return types and,
 * recursively, the types of their fields ({@link #allowTypesOf(Class)}). Users add more classes or
 * whole packages.
 *
 * <p>Thread-safe; it only grows. Additions are serialized (they happen at start-up); a lookup
 * takes no lock: a hash-set probe plus a scan of the (few) package prefixes, with no allocation
 * for plain class names.
 */
public final class ClassAllowList {

    private static final List<String> JDK_DEFAULTS = List.of(
            "boolean",
            "byte",
            "char",
            "short",
            "int",
            "long",
            "float",
            "double",
            "void",
            "java.lang.Object",
            "java.lang.String",
            "java.lang.Boolean",
            "java.lang.Byte",
            "java.lang.Character",
            "java.lang.Short",
            "java.lang.Integer",
            "java.lang.Long",
            "java.lang.Float",
            "java.lang.Double",
            "java.lang.Void",
            "java.lang.Number",
            "java.math.BigDecimal",
            "java.math.BigInteger",
            "java.util.ArrayList",
            "java.util.LinkedList",
            "java.util.HashMap",
            "java.util.LinkedHashMap",
            "java.util.TreeMap",
            "java.util.HashSet",
            "java.util.LinkedHashSet",
            "java.util.TreeSet",
            "java.util.ArrayDeque",
            "java.util.EnumMap",
            "java.util.Date",
            "java.util.UUID",
            "java.util.Locale",
            "java.util.Currency",
            "java.util.BitSet",
            "java.util.Optional",
            "java.util.Arrays$ArrayList",
            "java.util.ImmutableCollections$List12",
            "java.util.ImmutableCollections$ListN",
            "java.util.ImmutableCollections$Set12",
            "java.util.ImmutableCollections$SetN",
            "java.util.ImmutableCollections$Map1",
            "java.util.ImmutableCollections$MapN",
            "java.util.Collections$EmptyList",
            "java.util.Collections$EmptyMap",
            "java.util.Collections$EmptySet",
            "java.util.Collections$SingletonList",
            "java.util.Collections$SingletonMap",
            "java.util.Collections$SingletonSet",
            // Plain JDK collections, which protostuff names by their simple name.
            "java.util.Vector",
            "java.util.Stack",
            "java.util.Hashtable",
            "java.util.Properties",
            // An EnumSet is one of two classes, which Kryo names.
            "java.util.EnumSet",
            "java.util.RegularEnumSet",
            "java.util.JumboEnumSet",
            "java.util.concurrent.ConcurrentLinkedQueue",
            "java.util.concurrent.ConcurrentLinkedDeque",
            "java.util.concurrent.LinkedBlockingQueue",
            "java.util.concurrent.LinkedBlockingDeque",
            "java.util.concurrent.ConcurrentHashMap",
            "java.util.concurrent.ConcurrentSkipListMap",
            "java.util.concurrent.ConcurrentSkipListSet",
            "java.util.concurrent.atomic.AtomicInteger",
            "java.util.concurrent.atomic.AtomicLong",
            "java.util.concurrent.atomic.AtomicBoolean",
            "java.sql.Date",
            "java.sql.Time",
            "java.sql.Timestamp");

    private static final List<String> PACKAGE_DEFAULTS = List.of(
            // Immutable value types (Hessian accepts only the enums among them: it carries the
            // values as handles of its own, which its serializer allows itself).
            "java.time.");

    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final Set<Class<?>> scanned = ConcurrentHashMap.newKeySet();
    /** Allowed classes known as classes (walked, or given to {@link #allowClass}), not only by name. */
    private final Set<Class<?>> known = ConcurrentHashMap.newKeySet();

    private volatile String[] prefixes = new String[0];
    /** Changes with every name, class or package allowed: see {@link #generation()}. */
    private volatile int generation;

    private ClassAllowList() {}

    /**
     * The classes every list starts with, each of which round-trips equal through every built-in
     * serializer (a test checks each): boxes, {@code String}, {@code BigDecimal},
     * {@code BigInteger}, {@code UUID}, dates and the common collections. Classes whose meaning
     * a copy cannot keep are left out: weak and identity maps, queues ordered by a comparator
     * (serializers drop comparators), copy-on-write collections (rebuilt element by element in
     * quadratic time), bounded blocking queues (no constructor to rebuild them with) and stack
     * trace elements (remote exceptions travel as text).
     */
    static List<String> defaultClassNames() {
        return JDK_DEFAULTS;
    }

    /** The package prefixes every list starts with: {@code java.time.}. */
    static List<String> defaultPackages() {
        return PACKAGE_DEFAULTS;
    }

    /** A list with only the JDK defaults. */
    public static ClassAllowList withDefaults() {
        ClassAllowList list = new ClassAllowList();
        list.names.addAll(JDK_DEFAULTS);
        PACKAGE_DEFAULTS.forEach(list::allowPackage);
        return list;
    }

    /**
     * An independent list holding what this one does now: a builder hands each client or server
     * it builds a copy, so that what one of them allows later is not allowed by the others.
     */
    public synchronized ClassAllowList copy() {
        ClassAllowList c = new ClassAllowList();
        c.names.addAll(names);
        c.scanned.addAll(scanned);
        c.known.addAll(known);
        c.prefixes = prefixes;
        return c;
    }

    /** Allows one class (and arrays of it). */
    public synchronized ClassAllowList allowClass(Class<?> type) {
        Class<?> c = type;
        while (c.isArray()) {
            c = c.getComponentType();
        }
        names.add(c.getName());
        known.add(c);
        generation++;
        return this;
    }

    /** Allows one class by name, such as {@code com.acme.Order} or {@code com.acme.Outer$Inner}. */
    public synchronized ClassAllowList allowClassName(String className) {
        names.add(Objects.requireNonNull(className, "className"));
        generation++;
        // Known as a class too when this thread's loader has it, for serializers that prepare
        // per class (protostuff's records); one it cannot find is allowed by name all the same.
        try {
            Class<?> c = Class.forName(className, false, NamedExtensions.loader());
            known.add(c);
        } catch (ClassNotFoundException | LinkageError e) {
            // allowed by name only
        }
        return this;
    }

    /**
     * Allows every class whose name starts with {@code packagePrefix}; a prefix without a trailing
     * dot gets one, so {@code com.acme} allows {@code com.acme.X} but not {@code com.acmex.Y}.
     */
    public synchronized ClassAllowList allowPackage(String packagePrefix) {
        Objects.requireNonNull(packagePrefix, "packagePrefix");
        if (packagePrefix.isEmpty()) {
            throw new IllegalArgumentException("packagePrefix: empty (expected: a package such as com.acme)");
        }
        String p = packagePrefix.endsWith(".") ? packagePrefix : packagePrefix + ".";
        if (!Arrays.asList(prefixes).contains(p)) {
            String[] next = Arrays.copyOf(prefixes, prefixes.length + 1);
            next[prefixes.length] = p;
            prefixes = next;
            generation++;
        }
        return this;
    }

    /**
     * Allows what the methods of {@code serviceInterface} exchange: parameter, return and declared
     * exception types,
     * their generic type arguments, and recursively the declared types of their non-static,
     * non-transient fields (up to the first JDK superclass), the permitted subclasses of sealed
     * types and the constant classes of enums. JDK types are not walked into; only the defaults
     * and those named directly are allowed. A field declared {@code Object} or with an abstract,
     * non-sealed type says nothing about what it holds: the classes it holds must be allowed by
     * name or package.
     */
    public synchronized ClassAllowList allowTypesOf(Class<?> serviceInterface) {
        for (Method m : serviceInterface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            for (Type t : m.getGenericParameterTypes()) {
                walk(t);
            }
            walk(m.getGenericReturnType());
            for (Class<?> e : m.getExceptionTypes()) {
                walk(e); // declared exceptions come back as themselves
                allowClass(ExceptionValue.class); // in this form
            }
        }
        return this;
    }

    private void walk(Type type) {
        TypeGraph.walk(type, scanned, this::allowWalked);
    }

    /** One class the walk reached: a concrete JDK value type, or one of the application's own. */
    private void allowWalked(Class<?> c) {
        String name = c.getName();
        if (TypeGraph.isJdk(name)) {
            // JDK interfaces such as List say nothing about what may be constructed; concrete JDK
            // classes in signatures are value types we allow.
            if (!c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
                names.add(name);
                generation++;
            }
            return;
        }
        names.add(name);
        known.add(c);
        generation++;
        if (c.isEnum()) {
            // A constant with a body is a class of its own, which kryo names on the wire.
            for (Object constant : c.getEnumConstants()) {
                names.add(constant.getClass().getName());
            }
        }
    }

    /**
     * A number that changes whenever the list grows (a class, a name or a package), so that a
     * serializer which prepares something from the list (protostuff's record schemas, fory's
     * refusals of JDK classes) can tell cheaply that it must look again.
     */
    public int generation() {
        return generation;
    }

    /**
     * The allowed classes this list knows as classes, not only by package: those walked from
     * service interfaces, given to {@link #allowClass}, or named to {@link #allowClassName} and
     * found by the thread's class loader. A live view.
     */
    public Set<Class<?>> knownClasses() {
        return Collections.unmodifiableSet(known);
    }

    /**
     * Whether {@code className} may be constructed. Accepts binary names ({@code com.acme.A$B}),
     * JVM array descriptors ({@code [Lcom.acme.A;}, {@code [[I}) and source-style arrays
     * ({@code com.acme.A[]}); an array is allowed when its element type is.
     */
    public boolean isAllowed(String className) {
        if (className == null || className.isEmpty()) {
            return false;
        }
        String name = className;
        if (name.charAt(0) == '[') {
            int dims = 0;
            while (dims < name.length() && name.charAt(dims) == '[') {
                dims++;
            }
            if (dims == name.length()) {
                return false;
            }
            char kind = name.charAt(dims);
            if (kind == 'L') {
                if (!name.endsWith(";")) {
                    return false;
                }
                name = name.substring(dims + 1, name.length() - 1);
            } else if (dims + 1 == name.length()) {
                return "ZBCSIJFD".indexOf(kind) >= 0;
            } else {
                // Hessian writes arrays as "[int" or "[java.lang.String".
                name = name.substring(dims);
            }
        } else if (name.endsWith("[]")) {
            name = name.substring(0, name.indexOf('['));
        }
        if (names.contains(name)) {
            return true;
        }
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Throws {@link ClassNotAllowedException} unless {@code className} {@linkplain #isAllowed is allowed}. */
    public void check(String className) {
        if (!isAllowed(className)) {
            throw new ClassNotAllowedException(className);
        }
    }
}
