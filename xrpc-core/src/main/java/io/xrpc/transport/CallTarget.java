package io.xrpc.transport;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Per-method constants a caller prepares once: the routing strings, already encoded, the result
 * type, and for a method that declares exceptions what rebuilds a carried one ({@code null}
 * otherwise; it returns {@code null} for one it may not rebuild).
 */
public record CallTarget(String description, byte[] serviceKey, byte[] signature, Class<?> resultType,
                         Function<Object, Throwable> declaredExceptions) {

    public static CallTarget of(String serviceKey, String signature, Class<?> resultType) {
        return of(serviceKey, signature, resultType, null);
    }

    public static CallTarget of(String serviceKey, String signature, Class<?> resultType,
                                Function<Object, Throwable> declaredExceptions) {
        return new CallTarget(serviceKey + "#" + signature, utf8(serviceKey), utf8(signature), resultType,
                declaredExceptions);
    }

    /** UTF-8 bytes of a string that goes on the wire with a 16-bit length. */
    private static byte[] utf8(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xFFFF) {
            throw new IllegalArgumentException("string of " + b.length + " UTF-8 bytes (expected: at most 65535)");
        }
        return b;
    }
}
