package io.xrpc.serialize;

import io.xrpc.internal.ByteBufferInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * Turns call arguments and results into bytes and back.
 *
 * <p>Implementations are thread-safe: one instance serves every connection and thread of a client
 * or server. They keep no shared mutable buffers (pool or confine them per thread instead, and let
 * a thread keep little after a large message), and on reading they construct only classes their
 * {@link ClassAllowList} allows; a payload naming any other class fails with
 * {@link ClassNotAllowedException} before anything of it is created.
 *
 * <p>Reading treats every payload as hostile. XRpc hands over a stream holding exactly one
 * message, whose {@link InputStream#available()} is the exact number of bytes not yet read; a
 * length or count taken from the payload is checked against it before anything is allocated
 * ({@link ReadGuard#checkLength}), and the objects and nesting one message builds stay within the
 * {@link ReadLimits} the serializer was created with. Everything wrong with a payload fails with
 * {@link SerializationException}, {@link ClassNotAllowedException} or {@link PayloadLimitException};
 * bytes left over after the expected values are an error too.
 *
 * <p>The streams belong to the caller: implementations neither close them nor read past what they
 * wrote.
 *
 * <p>XRpc reads a message held in one piece of memory through the {@link ByteBuffer} forms of
 * {@link #readArguments(ByteBuffer, Class[], long) readArguments} and
 * {@link #readResult(ByteBuffer, Class, long) readResult}. By default they read through a stream
 * over the buffer; a serializer whose library can read memory in place overrides them (fory does),
 * under the same rules as the stream forms.
 */
public interface Serializer {

    /** Passed as a deadline when reading has none. */
    long NO_DEADLINE = Long.MIN_VALUE;

    /** The stable lower-case name used in configuration, such as {@code kryo}. */
    String name();

    /**
     * The id written in the frame header; unique among serializers. {@code 1}-{@code 31} are kept
     * for XRpc's own ({@code 1} kryo, {@code 2} hessian, {@code 3} protostuff,
     * {@code 4} fory, {@code 5} json); {@code 32}-{@code 127}
     * are left to applications.
     */
    byte id();

    /** Writes the arguments of a call; elements may be {@code null}. */
    void writeArguments(Object[] arguments, OutputStream out) throws IOException;

    /**
     * Reads what {@link #writeArguments} wrote, one value per declared parameter type.
     *
     * @param deadlineNanos a {@link System#nanoTime()} value after which reading gives up, or
     *                      {@link #NO_DEADLINE}
     */
    Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException;

    /**
     * Reads the arguments of one message held from {@code in}'s position to its limit, as
     * {@link #readArguments(InputStream, Class[], long)} does; on success the position is at the
     * limit. The buffer may be direct or read-only and is valid only during the call: an
     * implementation keeps no reference to it.
     */
    default Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        return readArguments(new ByteBufferInputStream(in), parameterTypes, deadlineNanos);
    }

    /**
     * Reads arguments as {@link #readArguments(ByteBuffer, Class[], long)} does, given also the
     * parameters' generic types ({@code List<Order>} where the class is {@code List}). Serializers
     * that write each value's class ignore them (the default); one that reads by declared type
     * (json) needs them to build a list's elements as what the method declares.
     */
    default Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, Type[] genericTypes, long deadlineNanos)
            throws IOException {
        return readArguments(in, parameterTypes, deadlineNanos);
    }

    /** Writes a call's result, which is never {@code null} (a null result has an empty body). */
    void writeResult(Object value, OutputStream out) throws IOException;

    /**
     * Why this serializer cannot carry values of the concrete class {@code type}, or {@code null}
     * when it can or cannot tell. XRpc asks at export and reference time about every class an
     * interface's methods exchange ({@link TypeCheck}), so that a type that would fail every call
     * fails start-up instead, naming itself. Asking must not change what the serializer writes.
     */
    default String cannotCarry(Class<?> type) {
        return null;
    }

    /**
     * Reads what {@link #writeResult} wrote; {@code type} is the declared result type.
     *
     * @param deadlineNanos as for {@link #readArguments}
     */
    Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException;

    /**
     * Reads a result held from {@code in}'s position to its limit, as
     * {@link #readResult(InputStream, Class, long)} does, under the rules of
     * {@link #readArguments(ByteBuffer, Class[], long)}.
     */
    default Object readResult(ByteBuffer in, Class<?> type, long deadlineNanos) throws IOException {
        return readResult(new ByteBufferInputStream(in), type, deadlineNanos);
    }

    /**
     * Reads a result as {@link #readResult(ByteBuffer, Class, long)} does, given also its generic
     * type; see {@link #readArguments(ByteBuffer, Class[], java.lang.reflect.Type[], long)}.
     */
    default Object readResult(ByteBuffer in, Class<?> type, Type genericType, long deadlineNanos) throws IOException {
        return readResult(in, type, deadlineNanos);
    }

    /**
     * Writes one message of a stream whose messages the method declares as {@code declaredType}
     * (never {@code null}). A stream carries many values of one declared type, so a serializer may
     * write less for a value of exactly that type than {@link #writeResult} writes (kryo leaves
     * out its class name); the default writes it as a result.
     */
    default void writeMessage(Object value, Class<?> declaredType, OutputStream out) throws IOException {
        writeResult(value, out);
    }

    /**
     * Reads what {@link #writeMessage} wrote, under the rules of {@link #readResult(ByteBuffer,
     * Class, Type, long)}; the default reads it as a result.
     */
    default Object readMessage(ByteBuffer in, Class<?> declaredType, Type genericType, long deadlineNanos)
            throws IOException {
        return readResult(in, declaredType, genericType, deadlineNanos);
    }
}
