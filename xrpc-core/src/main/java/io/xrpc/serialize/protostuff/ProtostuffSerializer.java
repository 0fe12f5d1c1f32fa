package io.xrpc.serialize.protostuff;

import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.runtime.DefaultIdStrategy;
import io.protostuff.runtime.IdStrategy;
import io.protostuff.runtime.RuntimeSchema;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Protostuff with runtime schemas. Arguments and results travel inside small holder messages so
 * that any value, including a bare {@code String} or a {@code List}, has a schema; polymorphic
 * values carry their class name, checked against the allow-list on reading.
 *
 * <p>Reading and writing use separate id strategies, so a class this side merely wrote is never
 * looked up by name when a peer sends it back: every name read goes through an
 * {@link AllowListClassLoader}.
 *
 * <p>Schemas are built once and cached by the id strategy. The {@link LinkedBuffer} scratch space
 * is one per thread: the original XRpc shared one static buffer between event-loop threads and
 * corrupted messages under load.
 */
public final class ProtostuffSerializer implements Serializer {
    public static final byte ID = 3;

    // Keep null array elements in place (an argument list may hold nulls anywhere) and write the
    // class of a subclass value held in a field declared with its non-final parent.
    private static final int FLAGS = IdStrategy.DEFAULT_FLAGS | IdStrategy.PRESERVE_NULL_ELEMENTS
            | IdStrategy.MORPH_NON_FINAL_POJOS;

    private final ClassAllowList allowList;
    private final Schema<Arguments> writeArguments;
    private final Schema<Result> writeResult;
    private final Schema<Arguments> readArguments;
    private final Schema<Result> readResult;
    private volatile AllowListClassLoader loader;
    private final ThreadLocal<LinkedBuffer> buffers = ThreadLocal.withInitial(() -> LinkedBuffer.allocate(512));

    public ProtostuffSerializer(ClassAllowList allowList) {
        this.allowList = allowList;
        IdStrategy writing = new DefaultIdStrategy(FLAGS);
        DefaultIdStrategy reading = new DefaultIdStrategy(FLAGS);
        ImmutableJdkCollections.readAsMutable(reading);
        this.writeArguments = RuntimeSchema.createFrom(Arguments.class, writing);
        this.writeResult = RuntimeSchema.createFrom(Result.class, writing);
        this.readArguments = RuntimeSchema.createFrom(Arguments.class, reading);
        this.readResult = RuntimeSchema.createFrom(Result.class, reading);
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
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes) throws IOException {
        Arguments holder = new Arguments();
        read(in, holder, readArguments);
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
    public Object readResult(InputStream in, Class<?> type) throws IOException {
        Result holder = new Result();
        read(in, holder, readResult);
        return holder.value;
    }

    private <T> void write(OutputStream out, T message, Schema<T> schema) throws IOException {
        LinkedBuffer buffer = buffers.get();
        try {
            ProtostuffIOUtil.writeTo(out, message, schema, buffer);
        } finally {
            buffer.clear();
        }
    }

    private <T> void read(InputStream in, T message, Schema<T> schema) throws IOException {
        LinkedBuffer buffer = buffers.get();
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loaderFor(previous));
        try {
            ProtostuffIOUtil.mergeFrom(in, message, schema, buffer);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ClassNotAllowedException c) {
                    throw c;
                }
            }
            throw e;
        } finally {
            thread.setContextClassLoader(previous);
            buffer.clear();
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

    /** Holder for a call's arguments. */
    static final class Arguments {
        Object[] values;
    }

    /** Holder for a call's result. */
    static final class Result {
        Object value;
    }
}
