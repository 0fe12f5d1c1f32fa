package io.xrpc.serialize;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Turns call arguments and results into bytes and back.
 *
 * <p>Implementations are thread-safe: one instance serves every connection and thread of a client
 * or server. They keep no shared mutable buffers (pool or confine them per thread instead), and on
 * reading they construct only classes their {@link ClassAllowList} allows; a payload naming any
 * other class fails with {@link ClassNotAllowedException} before anything of it is created.
 *
 * <p>The streams belong to the caller: implementations neither close them nor read past what they
 * wrote.
 */
public interface Serializer {

    /** The stable lower-case name used in configuration, such as {@code kryo}. */
    String name();

    /** The id written in the frame header; unique among serializers. */
    byte id();

    /** Writes the arguments of a call; elements may be {@code null}. */
    void writeArguments(Object[] arguments, OutputStream out) throws IOException;

    /** Reads what {@link #writeArguments} wrote, one value per declared parameter type. */
    Object[] readArguments(InputStream in, Class<?>[] parameterTypes) throws IOException;

    /** Writes a call's result, which is never {@code null} (a null result has an empty body). */
    void writeResult(Object value, OutputStream out) throws IOException;

    /** Reads what {@link #writeResult} wrote; {@code type} is the declared result type. */
    Object readResult(InputStream in, Class<?> type) throws IOException;
}
