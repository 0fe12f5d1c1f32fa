package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.BooleanArraySerializer;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.ObjectArraySerializer;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.StringArraySerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import java.util.Map;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * A Kryo that counts every value it reads against the thread's {@link ReadGuard} (objects and
 * nesting) and swaps the default serializers that pre-size from a claimed length (maps, object,
 * string and boolean arrays) for ones whose length {@link GuardedInput} checks first. Collections need no
 * swap: Kryo reads their lengths through {@link GuardedInput#readVarIntFlag}, which checks them.
 */
final class GuardedKryo extends Kryo {
    final ReadGuard guard;
    /** The type of the value being read, for naming it in a refusal; null between values. */
    private Class<?> reading;

    GuardedKryo(ClassAllowList allowList, ReadLimits limits) {
        super(new AllowListClassResolver(allowList), null);
        this.guard = new ReadGuard(limits);
        setRegistrationRequired(false);
        setReferences(false);
        setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        JdkSerializers.addDefaults(this);
    }

    String readingTypeName() {
        return reading == null ? "a collection" : reading.getName();
    }

    @Override
    public Serializer getDefaultSerializer(Class type) {
        Serializer s = super.getDefaultSerializer(type);
        Class<?> c = s.getClass();
        if (c == MapSerializer.class) {
            return new LengthCheckedMapSerializer();
        }
        if (c == ObjectArraySerializer.class) {
            return new LengthCheckedObjectArraySerializer(this, type);
        }
        if (c == StringArraySerializer.class) {
            return new LengthCheckedStringArraySerializer();
        }
        if (c == BooleanArraySerializer.class) {
            return new LengthCheckedBooleanArraySerializer();
        }
        return s;
    }

    @Override
    public Registration readClass(Input input) {
        Registration r = super.readClass(input);
        if (r != null) {
            reading = r.getType();
        }
        return r;
    }

    @Override
    public <T> T readObject(Input input, Class<T> type) {
        Class<?> outer = enter(type);
        try {
            return super.readObject(input, type);
        } finally {
            exit(outer);
        }
    }

    @Override
    public <T> T readObject(Input input, Class<T> type, Serializer serializer) {
        Class<?> outer = enter(type);
        try {
            return super.readObject(input, type, serializer);
        } finally {
            exit(outer);
        }
    }

    @Override
    public <T> T readObjectOrNull(Input input, Class<T> type) {
        Class<?> outer = enter(type);
        try {
            return super.readObjectOrNull(input, type);
        } finally {
            exit(outer);
        }
    }

    @Override
    public <T> T readObjectOrNull(Input input, Class<T> type, Serializer serializer) {
        Class<?> outer = enter(type);
        try {
            return super.readObjectOrNull(input, type, serializer);
        } finally {
            exit(outer);
        }
    }

    @Override
    public Object readClassAndObject(Input input) {
        Class<?> outer = enter(null);
        try {
            return super.readClassAndObject(input);
        } finally {
            exit(outer);
        }
    }

    private Class<?> enter(Class<?> type) {
        guard.enter();
        Class<?> outer = reading;
        reading = type;
        return outer;
    }

    private void exit(Class<?> outer) {
        reading = outer;
        guard.exit();
    }

    /** Checks every class name read from a payload before Kryo loads it. */
    static final class AllowListClassResolver extends DefaultClassResolver {
        private final ClassAllowList allowList;

        AllowListClassResolver(ClassAllowList allowList) {
            this.allowList = allowList;
        }

        @Override
        protected Class<?> getTypeByName(String className) {
            // A name this Kryo resolved before passed the check then: only new names are checked
            // (the check hashed and matched each name of every message, a fifth of reading a page).
            Class<?> known = super.getTypeByName(className);
            if (known == null) {
                allowList.check(className);
            }
            return known;
        }

        /** Also shrinks the name-id table, which a message naming many classes would leave large. */
        @Override
        public void reset() {
            super.reset();
            if (nameIdToClass != null) {
                nameIdToClass.clear(64);
            }
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class LengthCheckedMapSerializer extends MapSerializer<Map> {
        @Override
        public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
            ((GuardedInput) input).expectLength(type.getName());
            return super.read(kryo, input, type);
        }
    }

    static final class LengthCheckedObjectArraySerializer extends ObjectArraySerializer {
        LengthCheckedObjectArraySerializer(Kryo kryo, Class<?> type) {
            super(kryo, type);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public Object[] read(Kryo kryo, Input input, Class type) {
            ((GuardedInput) input).expectLength(type.getComponentType().getName() + "[]");
            return super.read(kryo, input, type);
        }
    }

    /** Kryo allocates a boolean[] itself, not through the input (found by {@code PayloadFuzzTest}). */
    static final class LengthCheckedBooleanArraySerializer extends BooleanArraySerializer {
        @Override
        @SuppressWarnings("rawtypes")
        public boolean[] read(Kryo kryo, Input input, Class type) {
            ((GuardedInput) input).expectLength("boolean[]");
            return super.read(kryo, input, type);
        }
    }

    static final class LengthCheckedStringArraySerializer extends StringArraySerializer {
        @Override
        @SuppressWarnings("rawtypes")
        public String[] read(Kryo kryo, Input input, Class type) {
            ((GuardedInput) input).expectLength("java.lang.String[]");
            return super.read(kryo, input, type);
        }
    }
}
