package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Kryo 5. Kryo instances are not thread-safe and costly to build (the original XRpc built one per
 * call and measured Kryo 16x slower than it is), so each thread keeps one together with its
 * {@link Output} and {@link Input} buffers.
 *
 * <p>Classes are not registered: a registration id depends on the order of {@code register}
 * calls, which two JVMs cannot be trusted to share. Kryo instead writes a class name the first
 * time a class appears in a message (its built-in ids cover primitives and {@code String}), and
 * on reading every name passes the {@link ClassAllowList} before it is loaded.
 */
public final class KryoSerializer implements Serializer {
    public static final byte ID = 1;
    private static final int BUFFER_SIZE = 4096;

    private final ClassAllowList allowList;
    // One Kryo per thread: lock-free, and the number of threads that serialize (event loops and
    // the bounded business executor) bounds the number of instances.
    private final ThreadLocal<Slot> slots;

    public KryoSerializer(ClassAllowList allowList) {
        this.allowList = allowList;
        this.slots = ThreadLocal.withInitial(() -> new Slot(newKryo(this.allowList)));
    }

    private static Kryo newKryo(ClassAllowList allowList) {
        Kryo kryo = new Kryo(new AllowListClassResolver(allowList), null);
        kryo.setRegistrationRequired(false);
        kryo.setReferences(false);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        return kryo;
    }

    @Override
    public String name() {
        return "kryo";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            Output o = s.output;
            o.setOutputStream(out);
            for (Object a : arguments) {
                s.kryo.writeClassAndObject(o, a);
            }
            o.flush();
            ok = true;
        } catch (KryoException e) {
            throw unwrap(e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes) throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            Input i = s.input;
            i.setInputStream(in);
            Object[] args = new Object[parameterTypes.length];
            for (int n = 0; n < args.length; n++) {
                args[n] = s.kryo.readClassAndObject(i);
            }
            ok = true;
            return args;
        } catch (KryoException e) {
            throw unwrap(e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            s.output.setOutputStream(out);
            s.kryo.writeClassAndObject(s.output, value);
            s.output.flush();
            ok = true;
        } catch (KryoException e) {
            throw unwrap(e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type) throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            s.input.setInputStream(in);
            Object value = s.kryo.readClassAndObject(s.input);
            ok = true;
            return value;
        } catch (KryoException e) {
            throw unwrap(e);
        } finally {
            done(s, ok);
        }
    }

    /**
     * Detaches the streams; after a failure the thread's Kryo is thrown away, since a read or
     * write that stopped half-way can leave state behind (generic type stacks, class-name ids)
     * that would corrupt the next message.
     */
    private void done(Slot s, boolean ok) {
        s.output.setOutputStream(null);
        s.input.setInputStream(null);
        if (!ok) {
            slots.remove();
        }
    }

    /** Kryo wraps everything in KryoException with a serialization trace; keep our refusal visible. */
    private static RuntimeException unwrap(KryoException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotAllowedException c) {
                return c;
            }
        }
        return e;
    }

    private static final class Slot {
        final Kryo kryo;
        final Output output = new Output(BUFFER_SIZE, -1);
        final Input input = new Input(BUFFER_SIZE);

        Slot(Kryo kryo) {
            this.kryo = kryo;
        }
    }

    /** Checks every class name read from a payload before Kryo loads it. */
    static final class AllowListClassResolver extends DefaultClassResolver {
        private final ClassAllowList allowList;

        AllowListClassResolver(ClassAllowList allowList) {
            this.allowList = allowList;
        }

        @Override
        protected Class<?> getTypeByName(String className) {
            allowList.check(className);
            return super.getTypeByName(className);
        }
    }
}
