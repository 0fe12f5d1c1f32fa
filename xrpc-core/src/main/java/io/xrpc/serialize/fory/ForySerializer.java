package io.xrpc.serialize.fory;

import io.xrpc.internal.ByteBufferInputStream;
import io.xrpc.internal.NamedExtensions;
import io.xrpc.internal.Types;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.WriteDepth;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.fory.Fory;
import org.apache.fory.config.CompatibleMode;
import org.apache.fory.config.Language;
import org.apache.fory.exception.InsecureException;
import org.apache.fory.memory.MemoryBuffer;
import org.apache.fory.resolver.SharedRegistry;

/**
 * Apache Fory 1.6, in Java mode with schema-consistent classes and without reference tracking
 * (as XRpc runs kryo), behind the same guards as the other serializers:
 *
 * <ul>
 *   <li>Classes are not registered, for the reason kryo's are not (ids depend on registration
 *       order); Fory writes a class's name the first time a message holds it, and on reading
 *       every name passes the {@link ClassAllowList} through Fory's type checker before it is
 *       loaded. The JDK classes Fory registers itself, which it reads by number without asking
 *       the checker, are refused unless allowed ({@link Refusals}). Unknown classes are never
 *       made up ({@code deserializeUnknownClass(false)}).</li>
 *   <li>{@link ReadLimits#maxDepth()} is Fory's depth limit; {@link ReadLimits#maxObjects()} is
 *       its graph-memory limit at 4 bytes an object (Fory estimates what a message builds in
 *       bytes, about 4 for each element or field slot and 16 for each object), so that a message
 *       refused by kryo's object count is refused here too, or earlier.</li>
 *   <li>A message over 4 KiB is fed to Fory 1 KiB at a time, the call's deadline checked before
 *       each, and a fill the rest of the message cannot hold is refused before Fory allocates
 *       for it ({@link GuardedStream}). A smaller one is read whole after one look at the
 *       clock: where it lies when XRpc hands over a {@link ByteBuffer} (as it does for every
 *       frame), else copied into the thread's 4 KiB buffer. Fory 1.6 checks every length against
 *       the bytes it holds (the count-bomb test puts huge claims at every byte of such
 *       messages).</li>
 * </ul>
 *
 * <p>One Fory per thread, as kryo's: its generated serializers are shared by all of them through
 * one registry. A thread keeps a 4 KiB write buffer and gives back a larger one after the message
 * that grew it. When the allow-list grows, each thread builds its Fory again on its next message.
 */
final class ForySerializer implements Serializer {
    public static final byte ID = 4;
    static final int BUFFER_SIZE = 4096;
    /** Bytes handed to Fory between two looks at the clock. */
    static final int CHUNK = 1024;
    /** Failed reads after which a thread's Fory is built again (dropping the names it cached). */
    static final int FAILURES_PER_FORY = 64;
    /** Failed reads, over all threads, after which the shared registry is made anew. */
    static final int FAILURES_PER_REGISTRY = 1024;
    /** Fory's graph-memory estimate allowed per object of {@link ReadLimits#maxObjects()}. */
    static final long GRAPH_BYTES_PER_OBJECT = 4;

    private final ClassAllowList allowList;
    private final ReadLimits limits;
    /**
     * What this serializer's Forys share (generated serializers, accepted class names), for one
     * generation of the allow-list: it holds the refusals made for that generation too.
     */
    private volatile Shared shared = new Shared(new SharedRegistry(), -1);

    private final ThreadLocal<Slot> slots = new ThreadLocal<>();
    private final AtomicLong totalFailures = new AtomicLong();
    /** For {@link #cannotCarry}, made on first use (start-up only), with a list of its own. */
    private Fory checker;

    private final ClassAllowList checkerList = ClassAllowList.withDefaults();

    public ForySerializer(ClassAllowList allowList, ReadLimits limits) {
        this.allowList = allowList;
        this.limits = limits;
    }

    Fory build(ClassAllowList list, SharedRegistry registry) {
        return Fory.builder()
                .withLanguage(Language.JAVA)
                .withCompatibleMode(CompatibleMode.SCHEMA_CONSISTENT)
                .requireClassRegistration(false)
                .suppressClassRegistrationWarnings(true)
                .withDeserializeUnknownClass(false)
                .withRefTracking(false)
                .withAsyncCompilation(false)
                .withBufferSizeLimitBytes(BUFFER_SIZE)
                // Fory counts a leaf value as a level of its own; XRpc's limit counts containers.
                .withMaxDepth(Math.max(2, limits.maxDepth() + 1))
                .withMaxGraphMemoryBytes(limits.maxObjects() * GRAPH_BYTES_PER_OBJECT)
                // Every element count checked against the bytes left: without this, Fory lets a
                // count up to the allowance through unchecked, and 6 bytes claiming 999,000
                // elements allocated an array for them.
                .withMaxUnbackedContainerItems(0)
                .withTypeChecker((resolver, className) -> {
                    if (!list.isAllowed(className)) {
                        throw new ClassNotAllowedException(className);
                    }
                    return true;
                })
                .withModule(fory -> Refusals.install(fory, list))
                .withSerializerFactory(Refusals::copiedByteBuffers)
                .withClassLoader(NamedExtensions.loader())
                .withSharedRegistry(registry)
                .build();
    }

    /** This thread's Fory, built again when the allow-list has grown since. */
    private Slot slot() {
        Slot s = slots.get();
        int generation = allowList.generation();
        if (s == null || s.generation != generation) {
            Shared sh = shared;
            if (sh.generation != generation) {
                sh = new Shared(new SharedRegistry(), generation);
                shared = sh;
            }
            s = new Slot(build(allowList, sh.registry), generation);
            slots.set(s);
        }
        return s;
    }

    private record Shared(SharedRegistry registry, int generation) {}

    @Override
    public String name() {
        return "fory";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        Slot s = slot();
        MemoryBuffer b = s.buffer;
        b.writerIndex(0);
        try {
            for (Object a : arguments) {
                s.fory.serialize(b, a);
            }
        } catch (RuntimeException | StackOverflowError e) {
            throw written(s, e);
        }
        flush(s, out);
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        Slot s = slot();
        MemoryBuffer b = s.buffer;
        b.writerIndex(0);
        try {
            s.fory.serialize(b, value);
        } catch (RuntimeException | StackOverflowError e) {
            throw written(s, e);
        }
        flush(s, out);
    }

    private static void flush(Slot s, OutputStream out) throws IOException {
        MemoryBuffer b = s.buffer;
        out.write(b.getHeapMemory(), 0, b.writerIndex());
        if (b.getHeapMemory().length > BUFFER_SIZE) {
            s.buffer = MemoryBuffer.newHeapBuffer(BUFFER_SIZE);
        }
    }

    /** What a failed write throws ({@link WriteDepth#failure}), after giving back a buffer it grew. */
    private static RuntimeException written(Slot s, Throwable e) {
        if (s.buffer.getHeapMemory().length > BUFFER_SIZE) {
            s.buffer = MemoryBuffer.newHeapBuffer(BUFFER_SIZE);
        }
        return WriteDepth.failure("fory", e);
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        Slot s = slot();
        try {
            return arguments(s, s.message(in, deadlineNanos), in, parameterTypes);
        } catch (RuntimeException | Error e) {
            throw failure(s, "fory arguments", e);
        }
    }

    /**
     * A message of up to 4 KiB is read where it lies, heap or direct, under the rules of the
     * whole small message above; a larger one as a stream, fed by the KiB.
     */
    @Override
    public Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        if (!inPlace(in)) {
            return readArguments(new ByteBufferInputStream(in), parameterTypes, deadlineNanos);
        }
        Slot s = slot();
        try {
            Object[] args = arguments(s, s.inPlace(in, deadlineNanos), NOTHING_MORE, parameterTypes);
            in.position(in.limit());
            return args;
        } catch (RuntimeException | Error e) {
            throw failure(s, "fory arguments", e);
        } finally {
            s.released();
        }
    }

    private static Object[] arguments(Slot s, MemoryBuffer message, InputStream in, Class<?>[] parameterTypes)
            throws SerializationException {
        Object[] args = new Object[parameterTypes.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = next(s, message, in, parameterTypes[i], args.length);
        }
        consumed(message, in, args.length);
        return args;
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        Slot s = slot();
        try {
            return result(s, s.message(in, deadlineNanos), in, type);
        } catch (RuntimeException | Error e) {
            throw failure(s, "a fory result", e);
        }
    }

    /** As {@link #readArguments(ByteBuffer, Class[], long)}. */
    @Override
    public Object readResult(ByteBuffer in, Class<?> type, long deadlineNanos) throws IOException {
        if (!inPlace(in)) {
            return readResult(new ByteBufferInputStream(in), type, deadlineNanos);
        }
        Slot s = slot();
        try {
            Object value = result(s, s.inPlace(in, deadlineNanos), NOTHING_MORE, type);
            in.position(in.limit());
            return value;
        } catch (RuntimeException | Error e) {
            throw failure(s, "a fory result", e);
        } finally {
            s.released();
        }
    }

    private static Object result(Slot s, MemoryBuffer message, InputStream in, Class<?> type)
            throws SerializationException {
        Object value = next(s, message, in, type, -1);
        consumed(message, in, -1);
        return value;
    }

    /** What follows a message Fory holds whole: nothing. */
    private static final InputStream NOTHING_MORE = InputStream.nullInputStream();

    /**
     * The next value of {@code message} (backed by {@code in} when streamed), as {@code type}.
     *
     * @param arguments how many arguments the message holds, or -1 for a result
     */
    private static Object next(Slot s, MemoryBuffer message, InputStream in, Class<?> type, int arguments)
            throws SerializationException {
        if (message.remaining() == 0 && available(in) == 0) {
            throw new SerializationException(
                    "the message ended before " + (arguments < 0 ? "the result" : "its " + arguments + " arguments"));
        }
        return declared(s.fory.deserialize(message), type);
    }

    private static void consumed(MemoryBuffer message, InputStream in, int arguments) throws SerializationException {
        long left = message.remaining() + (long) available(in);
        if (left > 0) {
            throw new SerializationException(
                    left + " bytes left over after " + (arguments < 0 ? "the result" : arguments + " arguments"));
        }
    }

    static int available(InputStream in) {
        try {
            return in.available();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Fory hands back what the bytes name; a value of another type than declared is refused here. */
    private static Object declared(Object value, Class<?> type) {
        if (value == null || type == Object.class || Types.box(type).isInstance(value)) {
            return value;
        }
        throw new IllegalStateException(new SerializationException(
                "fory read a " + value.getClass().getName() + " where a " + type.getName() + " was declared"));
    }

    /**
     * Fory's own limits in XRpc's words, as the other serializers say them. A thread's Fory is
     * built again after {@value #FAILURES_PER_FORY} failed reads, and the shared registry after
     * {@value #FAILURES_PER_REGISTRY}: Fory caches the class names a message spells (up to 2 KiB
     * each) before it asks whether they are allowed, so refused names would otherwise pile up.
     */
    private SerializationException failure(Slot s, String reading, Throwable e) {
        if (e instanceof VirtualMachineError vm && !(vm instanceof StackOverflowError)) {
            throw vm;
        }
        if (++s.failures >= FAILURES_PER_FORY) {
            slots.remove();
        }
        if (totalFailures.incrementAndGet() % FAILURES_PER_REGISTRY == 0) {
            shared = new Shared(new SharedRegistry(), shared.generation());
            slots.remove();
        }
        int hops = 0;
        for (Throwable t = e; t != null && hops++ < 64; t = t.getCause()) {
            if (t instanceof InsecureException insecure) {
                String m = String.valueOf(insecure.getMessage());
                if (m.contains("depth")) {
                    throw new PayloadLimitException(
                            "values nest deeper than " + limits.maxDepth() + " levels (the limit)");
                }
                if (m.contains("maxGraphMemoryBytes") || m.contains("maxUnbackedContainerItems")) {
                    throw new PayloadLimitException("the message builds more than " + limits.maxObjects()
                            + " objects (the limit, as Fory estimates what a message builds: " + m + ")");
                }
                if (m.contains("forbidden")) {
                    throw new ClassNotAllowedException(m);
                }
            }
        }
        return ReadGuard.failure(reading, e);
    }

    /**
     * Fory picks a serializer for a class the first time it meets it (generating code for the
     * application's own); asking for it here fails as a call would.
     */
    @Override
    public synchronized String cannotCarry(Class<?> type) {
        if (type.isInterface()
                || Modifier.isAbstract(type.getModifiers())
                || type.isPrimitive()
                || type == Void.class) {
            return null; // nothing, or only null, travels as such a type
        }
        try {
            if (checker == null) { // a Fory of its own: asking must not change what the callers' Forys hold
                checker = build(checkerList, new SharedRegistry());
            }
            checkerList.allowClass(type); // the question is whether Fory can, not whether it may
            checker.getTypeResolver().getSerializer(type);
            return null;
        } catch (RuntimeException | LinkageError e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            if (root instanceof ClassNotAllowedException) {
                return null; // a JDK class Fory refuses here only because this checker's list is the defaults
            }
            return root.getClass().getSimpleName() + ": " + root.getMessage();
        }
    }

    /** Fory is fed a message in pieces; the clock is read before each, {@code filled} bytes in. */
    static void checkDeadline(long deadlineNanos, long filled) {
        if (deadlineNanos != NO_DEADLINE && System.nanoTime() - deadlineNanos > 0) {
            throw new ReadDeadlineException("the call's deadline passed " + (filled == 0 ? "before" : "while")
                    + " its payload was read (" + filled + " bytes so far)");
        }
    }

    /** Whether Fory can read {@code in} where it lies: small enough, and a heap array or direct memory. */
    private static boolean inPlace(ByteBuffer in) {
        return in.remaining() <= BUFFER_SIZE && (in.isDirect() || in.hasArray());
    }
}
