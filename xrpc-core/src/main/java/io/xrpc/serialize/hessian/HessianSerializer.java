package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Hessian 2 ({@link Hessian2Output}/{@link GuardedHessianInput}), through Apache Dubbo's
 * maintained hessian-lite, which handles {@code java.time} on current JDKs.
 *
 * <p>One {@link AllowListSerializerFactory} (thread-safe, caches per-class serializers) serves
 * every thread. The output, which holds an 8 KiB buffer and reference tables, is kept one per
 * thread and reset between uses; after a message of more than 64 KiB it is dropped, since its
 * reference tables keep the size the message gave them. Each read gets a fresh input that bounds
 * what the message may build. Arguments are read with their declared parameter type, so Hessian's
 * narrowing (a {@code short} travels as an int) comes back as the right type.
 */
final class HessianSerializer implements Serializer {
    public static final byte ID = 2;
    /** Messages larger than this leave a thread with a fresh output rather than a grown one. */
    private static final long RETAIN_BELOW = 64 * 1024;

    private final AllowListSerializerFactory factory;
    private final ThreadLocal<Writer> writers;
    private final ThreadLocal<ReadGuard> guards;

    public HessianSerializer(ClassAllowList allowList, ReadLimits limits) {
        this.factory = new AllowListSerializerFactory(allowList);
        this.writers = ThreadLocal.withInitial(() -> new Writer(factory));
        this.guards = ThreadLocal.withInitial(() -> new ReadGuard(limits));
    }

    @Override
    public String name() {
        return "hessian";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        Writer w = writers.get();
        w.begin(out);
        try {
            for (Object a : arguments) {
                w.output.writeObject(a);
            }
            w.output.flushBuffer();
        } finally {
            end(w);
        }
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        Writer w = writers.get();
        w.begin(out);
        try {
            w.output.writeObject(value);
            w.output.flushBuffer();
        } finally {
            end(w);
        }
    }

    private void end(Writer w) {
        w.output.init(null);
        if (w.counter.count > RETAIN_BELOW) {
            writers.remove();
        }
        w.counter.target = null;
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        GuardedHessianInput i = input(in, deadlineNanos);
        try {
            Object[] args = new Object[parameterTypes.length];
            for (int n = 0; n < args.length; n++) {
                args[n] = i.readObject(parameterTypes[n]);
            }
            checkConsumed(i, args.length);
            return args;
        } catch (IOException | RuntimeException | StackOverflowError | LinkageError e) {
            throw ReadGuard.failure("hessian arguments", e);
        } finally {
            AllowListSerializerFactory.READING.remove();
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        GuardedHessianInput i = input(in, deadlineNanos);
        try {
            Object value = type == void.class || type == Void.class ? i.readObject() : i.readObject(type);
            checkConsumed(i, -1);
            return value;
        } catch (IOException | RuntimeException | StackOverflowError | LinkageError e) {
            throw ReadGuard.failure("a hessian result", e);
        } finally {
            AllowListSerializerFactory.READING.remove();
        }
    }

    /**
     * A new input per message: Hessian2Input's reset keeps its read-ahead buffer, so a reused one
     * would hand bytes left over from one message (a peer's trailing data) to the next.
     */
    private GuardedHessianInput input(InputStream in, long deadlineNanos) throws IOException {
        ReadGuard guard = guards.get();
        guard.begin(deadlineNanos);
        GuardedHessianInput i = new GuardedHessianInput(in, in.available(), guard);
        i.setSerializerFactory(factory);
        AllowListSerializerFactory.READING.set(i);
        return i;
    }

    /** @param arguments how many arguments were read, or -1 for a result */
    private static void checkConsumed(GuardedHessianInput in, int arguments) throws IOException {
        if (!in.isEnd()) {
            throw new SerializationException(
                    "bytes left over after " + (arguments < 0 ? "the result" : arguments + " arguments"));
        }
    }

    /** One thread's output, writing through a counter that tells how large the last message was. */
    private static final class Writer {
        final Counter counter = new Counter();
        final Hessian2Output output = new Hessian2Output(null);

        Writer(AllowListSerializerFactory factory) {
            output.setSerializerFactory(factory);
        }

        void begin(OutputStream out) {
            counter.target = out;
            counter.count = 0;
            output.init(counter);
        }
    }

    private static final class Counter extends OutputStream {
        OutputStream target;
        long count;

        @Override
        public void write(int b) throws IOException {
            target.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target.write(b, off, len);
            count += len;
        }
    }
}
