package io.xrpc.serialize.protostuff;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.runtime.DefaultIdStrategy;
import io.xrpc.internal.Types;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;

/**
 * Carries one record class. Protostuff's runtime schema sets fields through {@code Unsafe}, which
 * refuses records ("can't get field offset on a record class"), and it builds a message before
 * reading into it, which an immutable record cannot be. A record instead travels as the values of
 * its components in order, each written like a value of an {@code Object} field, and is read back
 * through its canonical constructor, so a compact constructor validates what arrives.
 *
 * <p>Protostuff consults its delegates by class name before it builds any schema, and its id
 * strategy cannot be extended, so a record's delegate must be registered before protostuff first
 * meets the class: {@link ProtostuffSerializer} registers every record among the classes its
 * allow-list knows (the types of exported and referenced interfaces, and classes allowed by
 * class) before it reads or writes.
 */
final class RecordDelegate<R> extends CollectionDelegates.MessageDelegate<R> {
    private final Class<R> type;
    private final Schema<CollectionDelegates.Elements> schema;
    private final RecordComponent[] components;
    /** Each component's type, primitives boxed: what a value read for it must be an instance of. */
    private final Class<?>[] boxedTypes;

    private final MethodHandle[] accessors;
    private final MethodHandle constructor;

    /**
     * Registers a delegate for {@code type} on {@code strategy} unless it has one; a record whose
     * constructor or accessors this module may not reach is left to fail on use, naming itself.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static void register(DefaultIdStrategy strategy, Class<?> type, Schema<CollectionDelegates.Elements> schema) {
        if (type.isRecord() && !strategy.isDelegateRegistered(type)) {
            try {
                strategy.registerDelegate(new RecordDelegate(type, schema));
            } catch (IllegalStateException e) {
                // not registered: see above
            }
        }
    }

    RecordDelegate(Class<R> type, Schema<CollectionDelegates.Elements> schema) {
        this.type = type;
        this.schema = schema;
        this.components = type.getRecordComponents();
        this.accessors = new MethodHandle[components.length];
        this.boxedTypes = new Class<?>[components.length];
        Class<?>[] types = new Class<?>[components.length];
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            for (int i = 0; i < components.length; i++) {
                Method m = components[i].getAccessor();
                m.setAccessible(true);
                accessors[i] = lookup.unreflect(m).asType(MethodType.methodType(Object.class, Object.class));
                types[i] = components[i].getType();
                boxedTypes[i] = Types.box(types[i]);
            }
            Constructor<R> c = type.getDeclaredConstructor(types);
            c.setAccessible(true);
            this.constructor = lookup.unreflectConstructor(c)
                    .asSpreader(Object[].class, types.length)
                    .asType(MethodType.methodType(Object.class, Object[].class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "protostuff cannot carry record " + type.getName()
                            + ": its canonical constructor and accessors are not accessible (" + e + ")",
                    e);
        }
    }

    @Override
    public Class<?> typeClass() {
        return type;
    }

    @Override
    public void writeTo(Output output, int number, R value, boolean repeated) throws IOException {
        Object[] values = new Object[accessors.length];
        try {
            for (int i = 0; i < values.length; i++) {
                values[i] = (Object) accessors[i].invokeExact((Object) value);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        CollectionDelegates.Elements e = new CollectionDelegates.Elements();
        e.values = values;
        output.writeObject(number, e, schema, repeated);
    }

    @Override
    public R readFrom(Input input) throws IOException {
        CollectionDelegates.Elements e = input.mergeObject(null, schema);
        Object[] values = e.values == null ? new Object[0] : e.values;
        if (values.length != components.length) {
            throw new SerializationException("record " + type.getName() + " with " + values.length
                    + " components (expected: " + components.length + ")");
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null ? components[i].getType().isPrimitive() : !boxedTypes[i].isInstance(values[i])) {
                throw new SerializationException("record " + type.getName() + ": component "
                        + components[i].getName() + " of type "
                        + components[i].getType().getName() + " holds "
                        + (values[i] == null
                                ? "null"
                                : "a " + values[i].getClass().getName()));
            }
        }
        try {
            return type.cast((Object) constructor.invokeExact(values));
        } catch (RuntimeException ex) {
            throw new SerializationException("record " + type.getName() + " refused its components: " + ex, ex);
        } catch (Error ex) {
            throw ex;
        } catch (Throwable t) {
            throw new SerializationException("record " + type.getName() + " refused its components: " + t, t);
        }
    }
}
