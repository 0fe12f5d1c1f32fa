package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Output;
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
import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * Kryo 5. Kryo instances are not thread-safe and costly to build (the original XRpc built one per
 * call and measured Kryo 16x slower than it is), so each thread keeps one together with its
 * {@link Output} and input buffers: 4 KiB each, plus at most 16 KiB of string scratch, which is
 * given back after a message that needed more.
 *
 * <p>Classes are not registered: a registration id depends on the order of {@code register}
 * calls, which two JVMs cannot be trusted to share. Kryo instead writes a class name the first
 * time a class appears in a message (its built-in ids cover primitives and {@code String}), and
 * on reading every name passes the {@link ClassAllowList} before it is loaded. Every length read
 * is checked against the rest of the message and every value counted against the
 * {@link ReadLimits} ({@link GuardedInput}, {@link GuardedKryo}).
 */
final class KryoSerializer implements Serializer {
    public static final byte ID = 1;
    private static final int BUFFER_SIZE = 4096;

    // One Kryo per thread: lock-free, and the number of threads that serialize (event loops and
    // the bounded business executor) bounds the number of instances.
    private final ThreadLocal<Slot> slots;
    /** For {@link #cannotCarry}, made on first use (start-up only). */
    private GuardedKryo checker;

    public KryoSerializer(ClassAllowList allowList, ReadLimits limits) {
        this.slots = ThreadLocal.withInitial(() -> new Slot(new GuardedKryo(allowList, limits)));
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
            throw WriteDepth.failure("kryo", e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        Slot s = slots.get();
        s.input.setInputStream(in);
        return readArguments(s, parameterTypes, deadlineNanos);
    }

    @Override
    public Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        Slot s = slots.get();
        s.input.attach(in);
        return readArguments(s, parameterTypes, deadlineNanos);
    }

    private Object[] readArguments(Slot s, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        boolean ok = false;
        try {
            GuardedInput i = s.input;
            s.kryo.guard.begin(deadlineNanos);
            Object[] args = new Object[parameterTypes.length];
            for (int n = 0; n < args.length; n++) {
                args[n] = s.kryo.readClassAndObject(i);
            }
            checkConsumed(i, args.length);
            ok = true;
            return args;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            throw ReadGuard.failure("kryo arguments", e);
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
            throw WriteDepth.failure("kryo", e);
        } finally {
            done(s, ok);
        }
    }

    /** A stream message of exactly its declared (final) type follows, without its class name. */
    private static final byte DECLARED = 0;
    /** A stream message follows as a result is written: its class name, then its fields. */
    private static final byte NAMED = 1;

    @Override
    public void writeMessage(Object value, Class<?> declaredType, OutputStream out) throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            s.output.setOutputStream(out);
            if (value.getClass() == declaredType && Modifier.isFinal(declaredType.getModifiers())) {
                s.output.writeByte(DECLARED);
                s.kryo.writeObject(s.output, value);
            } else {
                s.output.writeByte(NAMED);
                s.kryo.writeClassAndObject(s.output, value);
            }
            s.output.flush();
            ok = true;
        } catch (KryoException e) {
            throw WriteDepth.failure("kryo", e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public Object readMessage(ByteBuffer in, Class<?> declaredType, Type genericType, long deadlineNanos)
            throws IOException {
        Slot s = slots.get();
        boolean ok = false;
        try {
            s.input.attach(in);
            s.kryo.guard.begin(deadlineNanos);
            byte mark = s.input.readByte();
            Object value;
            if (mark == DECLARED && Modifier.isFinal(declaredType.getModifiers())) {
                value = s.kryo.readObject(s.input, declaredType); // the method's own type: on the allow-list
            } else if (mark == NAMED) {
                value = s.kryo.readClassAndObject(s.input);
            } else {
                throw new SerializationException("a stream message marked " + mark + " (expected: " + NAMED + ", or "
                        + DECLARED + " for a value of the final class " + declaredType.getName() + ")");
            }
            checkConsumed(s.input, -1);
            ok = true;
            return value;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            throw ReadGuard.failure("a kryo stream message", e);
        } finally {
            done(s, ok);
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        Slot s = slots.get();
        s.input.setInputStream(in);
        return readResult(s, deadlineNanos);
    }

    @Override
    public Object readResult(ByteBuffer in, Class<?> type, long deadlineNanos) throws IOException {
        Slot s = slots.get();
        s.input.attach(in);
        return readResult(s, deadlineNanos);
    }

    private Object readResult(Slot s, long deadlineNanos) throws IOException {
        boolean ok = false;
        try {
            s.kryo.guard.begin(deadlineNanos);
            Object value = s.kryo.readClassAndObject(s.input);
            checkConsumed(s.input, -1);
            ok = true;
            return value;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            throw ReadGuard.failure("a kryo result", e);
        } finally {
            done(s, ok);
        }
    }

    /**
     * Kryo picks a serializer for a class the first time it meets it; for a JDK class it has none
     * of its own for, that is a field serializer, which cannot open {@code java.*} fields on JDK 17+
     * without {@code --add-opens}. Asking for the serializer here fails the same way a call would.
     */
    @Override
    public synchronized String cannotCarry(Class<?> type) {
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers()) || type.isPrimitive()) {
            return null;
        }
        try {
            if (checker == null) { // a Kryo of its own: asking must not change what the callers' Kryos hold
                checker = new GuardedKryo(ClassAllowList.withDefaults(), ReadLimits.defaults());
            }
            checker.getSerializer(type);
            return null;
        } catch (RuntimeException | LinkageError e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root.getClass().getSimpleName() + ": " + root.getMessage();
        }
    }

    /** Characters of string scratch this thread keeps between messages. */
    int retainedScratchChars() {
        return slots.get().input.scratchChars();
    }

    /** @param arguments how many arguments were read, or -1 for a result */
    private static void checkConsumed(GuardedInput in, int arguments) throws SerializationException {
        long left = in.remaining();
        if (left > 0) {
            throw new SerializationException(
                    left + " bytes left over after " + (arguments < 0 ? "the result" : arguments + " arguments"));
        }
    }

    /**
     * Detaches the streams and gives back buffers a large message grew; after a failure the
     * thread's Kryo is thrown away, since a read or write that stopped half-way can leave state
     * behind (generic type stacks, class-name ids) that would corrupt the next message.
     */
    private void done(Slot s, boolean ok) {
        s.output.setOutputStream(null);
        if (s.output.getBuffer().length > BUFFER_SIZE) {
            s.output.setBuffer(new byte[BUFFER_SIZE], -1);
        }
        s.input.finish();
        if (!ok) {
            slots.remove();
        }
    }

    private static final class Slot {
        final GuardedKryo kryo;
        final Output output = new Output(BUFFER_SIZE, -1);
        final GuardedInput input;

        Slot(GuardedKryo kryo) {
            this.kryo = kryo;
            this.input = new GuardedInput(kryo, BUFFER_SIZE);
        }
    }
}
