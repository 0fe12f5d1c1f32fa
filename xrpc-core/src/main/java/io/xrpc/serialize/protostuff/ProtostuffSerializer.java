package io.xrpc.serialize.protostuff;

import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.runtime.DefaultIdStrategy;
import io.protostuff.runtime.IdStrategy;
import io.protostuff.runtime.RuntimeSchema;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.WriteDepth;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Modifier;

/**
 * Protostuff with runtime schemas. Arguments and results travel inside small holder messages so
 * that any value, including a bare {@code String} or a {@code List}, has a schema; polymorphic
 * values carry their class name, checked against the allow-list on reading.
 *
 * <p>Reading and writing use separate id strategies, so a class this side merely wrote is never
 * looked up by name when a peer sends it back: every name read goes through an
 * {@link AllowListClassLoader}. Reading goes through a {@link GuardedInput}, which checks every
 * count before protostuff allocates for it and counts what the message builds against the
 * {@link ReadLimits}. JDK value types whose fields protostuff cannot copy travel through
 * {@link JdkDelegates}, records through {@link RecordDelegate}.
 *
 * <p>Schemas are built once and cached by the id strategy. Each thread keeps a 512-byte
 * {@link LinkedBuffer} for writing (the original XRpc shared one static buffer between event-loop
 * threads and corrupted messages under load), a 512-byte read buffer and its read bookkeeping, and
 * nothing else between messages.
 */
final class ProtostuffSerializer implements Serializer {
    public static final byte ID = 3;

    // Keep null array elements in place (an argument list may hold nulls anywhere) and write the
    // class of a subclass value held in a field declared with its non-final parent.
    private static final int FLAGS =
            IdStrategy.DEFAULT_FLAGS | IdStrategy.PRESERVE_NULL_ELEMENTS | IdStrategy.MORPH_NON_FINAL_POJOS;

    static {
        // Protostuff picks how it instantiates and accesses classes when its runtime first loads,
        // through the thread's context class loader; a thread whose loader is null or refuses
        // sun.reflect.ReflectionFactory (our allow-list loader would) leaves it in a mode that
        // fails on every JDK class for the life of the JVM. Load it here, with our own loader.
        Thread t = Thread.currentThread();
        ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(ProtostuffSerializer.class.getClassLoader());
        try {
            Class.forName("io.protostuff.runtime.RuntimeEnv", true, ProtostuffSerializer.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        } finally {
            t.setContextClassLoader(previous);
        }
    }

    /** Said when protostuff meets a record it has no delegate for. */
    private static final String UNKNOWN_RECORD = "protostuff carries a record only when XRpc knows its class:"
            + " a type of an exported or referenced interface, or allowed by class (allowClass, or"
            + " xrpc.allowed-classes), not only by package";

    private final ClassAllowList allowList;
    private final DefaultIdStrategy writing;
    private final DefaultIdStrategy reading;
    private final Schema<CollectionDelegates.Elements> writeComponents;
    private final Schema<CollectionDelegates.Elements> readComponents;
    /** The allow-list generation whose records have delegates. */
    private volatile int recordsAt = -1;

    private final Schema<Arguments> writeArguments;
    private final Schema<Result> writeResult;
    private final Schema<Arguments> readArguments;
    private final Schema<Result> readResult;
    private volatile AllowListClassLoader loader;
    private final ThreadLocal<Slot> slots;

    public ProtostuffSerializer(ClassAllowList allowList, ReadLimits limits) {
        this.allowList = allowList;
        this.writing = new DefaultIdStrategy(FLAGS);
        this.reading = new DefaultIdStrategy(FLAGS);
        JdkDelegates.registerAll(writing);
        JdkDelegates.registerAll(reading);
        CollectionDelegates.registerAll(writing, allowList);
        CollectionDelegates.registerAll(reading, allowList);
        ImmutableJdkCollections.readAsMutable(reading);
        this.writeComponents = RuntimeSchema.createFrom(CollectionDelegates.Elements.class, writing);
        this.readComponents = RuntimeSchema.createFrom(CollectionDelegates.Elements.class, reading);
        this.writeArguments = RuntimeSchema.createFrom(Arguments.class, writing);
        this.writeResult = RuntimeSchema.createFrom(Result.class, writing);
        this.readArguments = RuntimeSchema.createFrom(Arguments.class, reading);
        this.readResult = RuntimeSchema.createFrom(Result.class, reading);
        this.slots = ThreadLocal.withInitial(() -> new Slot(limits));
    }

    @Override
    public String name() {
        return "protostuff";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        Arguments holder = new Arguments();
        holder.values = arguments;
        write(out, holder, writeArguments);
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        Arguments holder = new Arguments();
        read(in, holder, readArguments, parameterTypes.length, deadlineNanos, "protostuff arguments");
        Object[] values = holder.values;
        if (values == null) {
            values = new Object[0];
        }
        return values;
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        Result holder = new Result();
        holder.value = value;
        write(out, holder, writeResult);
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        Result holder = new Result();
        read(in, holder, readResult, -1, deadlineNanos, "a protostuff result");
        return holder.value;
    }

    /**
     * A record whose constructor or accessors this module may not reach (a named module that does
     * not open its package) cannot be read back; any other class protostuff reaches through
     * {@code Unsafe}, and a schema that fails to build fails here as it would on a call.
     */
    @Override
    public String cannotCarry(Class<?> type) {
        if (type.isRecord()) {
            try {
                new RecordDelegate<>(type, writeComponents);
                return null;
            } catch (IllegalStateException e) {
                return e.getMessage();
            }
        }
        String name = type.getName();
        if (type.isInterface()
                || Modifier.isAbstract(type.getModifiers())
                || type.isPrimitive()
                || type.isArray()
                || type.isEnum()
                || name.startsWith("java.")
                || name.startsWith("javax.")) {
            return null;
        }
        registerRecords();
        try {
            RuntimeSchema.createFrom(type, writing);
            return null;
        } catch (RuntimeException | LinkageError e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Gives every record the allow-list knows a delegate, before protostuff can meet it. */
    private void registerRecords() {
        int g = allowList.generation();
        if (g == recordsAt) {
            return;
        }
        synchronized (this) {
            for (Class<?> c : allowList.knownClasses()) {
                RecordDelegate.register(writing, c, writeComponents);
                RecordDelegate.register(reading, c, readComponents);
            }
            recordsAt = g;
        }
    }

    private <T> void write(OutputStream out, T message, Schema<T> schema) throws IOException {
        registerRecords();
        LinkedBuffer buffer = slots.get().buffer;
        try {
            ProtostuffIOUtil.writeTo(out, message, schema, buffer);
        } catch (StackOverflowError e) {
            throw new IllegalArgumentException(WriteDepth.TOO_DEEP.formatted("protostuff"));
        } catch (UnsupportedOperationException e) {
            if (String.valueOf(e.getMessage()).contains("record class")) {
                throw new IllegalArgumentException(UNKNOWN_RECORD + " (" + e.getMessage() + ")", e);
            }
            throw e;
        } finally {
            buffer.clear();
        }
    }

    private <T> void read(
            InputStream in, T message, Schema<T> schema, int holderLength, long deadlineNanos, String what)
            throws IOException {
        registerRecords();
        Slot slot = slots.get();
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loaderFor(previous));
        try {
            slot.guard.begin(deadlineNanos);
            GuardedInput.mergeFrom(in, slot.readBuffer, message, schema, slot.guard, holderLength);
        } catch (IOException | RuntimeException | StackOverflowError | LinkageError e) {
            if (String.valueOf(e.getMessage()).contains("Outdated registry")) {
                throw new SerializationException(what + ": " + UNKNOWN_RECORD + " (" + e.getMessage() + ")", e);
            }
            throw ReadGuard.failure(what, e); // protostuff's own IOExceptions included (found by PayloadFuzzTest)
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private ClassLoader loaderFor(ClassLoader parent) {
        ClassLoader p = parent != null ? parent : ProtostuffSerializer.class.getClassLoader();
        AllowListClassLoader l = loader;
        if (l == null || l.getParent() != p) {
            l = new AllowListClassLoader(p, allowList);
            loader = l;
        }
        return l;
    }

    /** One thread's scratch: the buffer protostuff reads and writes through, and the read bookkeeping. */
    private static final class Slot {
        final LinkedBuffer buffer = LinkedBuffer.allocate(512);
        final byte[] readBuffer = new byte[512];
        final ReadGuard guard;

        Slot(ReadLimits limits) {
            this.guard = new ReadGuard(limits);
        }
    }

    /** Holder for a call's arguments. */
    static final class Arguments {
        Object[] values;
    }

    /** Holder for a call's result. */
    static final class Result {
        Object value;
    }
}
