package io.xrpc.serialize.protostuff;

import io.protostuff.CollectionSchema;
import io.protostuff.MapSchema;
import io.protostuff.runtime.DefaultIdStrategy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Protostuff rebuilds a collection by instantiating its class and adding elements, which throws
 * for the JDK's unmodifiable collections ({@code List.of}, {@code Arrays.asList}, ...). On
 * reading, these are rebuilt as their plain mutable counterparts, as kryo and hessian do too.
 * ({@code Collections}' singletons and empties have delegates of their own, in
 * {@link CollectionDelegates}.)
 */
final class ImmutableJdkCollections {
    private static final List<String> LISTS = List.of(
            "java.util.ImmutableCollections$List12",
            "java.util.ImmutableCollections$ListN",
            "java.util.ImmutableCollections$SubList",
            "java.util.Arrays$ArrayList",
            "java.util.Collections$UnmodifiableList",
            "java.util.Collections$UnmodifiableRandomAccessList");
    private static final List<String> SETS = List.of(
            "java.util.ImmutableCollections$Set12",
            "java.util.ImmutableCollections$SetN",
            "java.util.Collections$UnmodifiableSet");
    private static final List<String> MAPS = List.of(
            "java.util.ImmutableCollections$Map1",
            "java.util.ImmutableCollections$MapN",
            "java.util.Collections$UnmodifiableMap");

    private ImmutableJdkCollections() {}

    static void readAsMutable(DefaultIdStrategy strategy) {
        for (String name : LISTS) {
            Class<?> type = load(name);
            if (type != null) {
                strategy.registerCollection(new CollectionFactory(type, false));
            }
        }
        for (String name : SETS) {
            Class<?> type = load(name);
            if (type != null) {
                strategy.registerCollection(new CollectionFactory(type, true));
            }
        }
        for (String name : MAPS) {
            Class<?> type = load(name);
            if (type != null) {
                strategy.registerMap(new MapFactory(type));
            }
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, null);
        } catch (ClassNotFoundException e) {
            return null; // not in this JDK
        }
    }

    private record CollectionFactory(Class<?> typeClass, boolean set) implements CollectionSchema.MessageFactory {
        @Override
        public <V> Collection<V> newMessage() {
            return set ? new LinkedHashSet<>() : new ArrayList<>();
        }
    }

    private record MapFactory(Class<?> typeClass) implements MapSchema.MessageFactory {
        @Override
        public <K, V> Map<K, V> newMessage() {
            return new LinkedHashMap<>();
        }
    }
}
