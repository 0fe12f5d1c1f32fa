package io.xrpc.serialize;

import io.xrpc.internal.NamedExtensions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The serializers of one client or server, by name (configuration) and by id (the wire). Each
 * registry creates its own serializer instances over its own {@link ClassAllowList}, so what one
 * server allows does not leak into another in the same JVM.
 */
public final class SerializerRegistry {
    private final NamedExtensions<Serializer> byName;
    private final Serializer[] byId = new Serializer[256];
    private final ClassAllowList allowList;
    /** Serializers whose library is not on the class path, by name: the dependency each needs. */
    private final Map<String, String> missing = new TreeMap<>();
    /** The class each of those found missing first. */
    private final Map<String, String> absentClasses = new HashMap<>();

    private SerializerRegistry(
            ClassAllowList allowList, ReadLimits limits, NamedExtensions<SerializerProvider> providers) {
        this.allowList = allowList;
        List<Serializer> created = new ArrayList<>();
        for (SerializerProvider p : providers.all()) {
            Serializer s;
            try {
                s = p.create(allowList, limits);
            } catch (NoClassDefFoundError absent) {
                // Only a missing class means the optional library was left out; any other linkage
                // error (a wrong version, a failed initializer) is a broken class path, and is thrown.
                if (p.dependency() == null) {
                    throw absent;
                }
                missing.put(p.name(), p.dependency());
                absentClasses.put(p.name(), String.valueOf(absent.getMessage()));
                continue;
            }
            Serializer clash = byId[s.id() & 0xFF];
            if (clash != null) {
                throw new IllegalStateException("serializer id " + s.id() + " is used by both " + clash.name() + " ("
                        + NamedExtensions.describe(clash) + ") and " + s.name() + " (" + NamedExtensions.describe(s)
                        + "): each serializer needs an id of its own (32-127 are left to applications)");
            }
            byId[s.id() & 0xFF] = s;
            created.add(s);
        }
        this.byName = NamedExtensions.of("serializer", created, Serializer::name, s -> 0);
    }

    /** Loads every {@link SerializerProvider} visible to the context class loader (else this class's). */
    public static SerializerRegistry load(ClassAllowList allowList, ReadLimits limits) {
        return new SerializerRegistry(allowList, limits, NamedExtensions.load("serializer", SerializerProvider.class));
    }

    /**
     * The serializer called {@code name}; an unknown name fails with the list of known ones, and
     * one whose library is not on the class path fails naming the dependency to add.
     */
    public Serializer get(String name) {
        String dependency = missing.get(name);
        if (dependency != null) {
            throw new IllegalArgumentException("serializer: " + name + " needs " + dependency + " on the class path"
                    + " (add it as a dependency; xrpc-core brings only kryo's and json's; missing: "
                    + absentClasses.get(name) + ")");
        }
        return byName.get(name);
    }

    /** The serializers known by name whose library is not on the class path, with the dependency each needs. */
    public Map<String, String> missing() {
        return Collections.unmodifiableMap(missing);
    }

    /** The serializer with header id {@code id}, or {@code null}. */
    public Serializer byId(byte id) {
        return byId[id & 0xFF];
    }

    /** Every serializer, in priority order. */
    public Collection<Serializer> all() {
        return byName.all();
    }

    public ClassAllowList allowList() {
        return allowList;
    }
}
