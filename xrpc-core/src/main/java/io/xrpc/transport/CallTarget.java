package io.xrpc.transport;

import io.xrpc.protocol.WireStrings;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.Serializer;
import java.lang.reflect.Type;

/**
 * Per-method constants a caller prepares once: the routing strings, already encoded, the result
 * type, and for a method that declares exceptions what rebuilds a carried one ({@code null}
 * otherwise; it returns {@code null} for one it may not rebuild).
 */
public record CallTarget(
        String description,
        byte[] serviceKey,
        byte[] signature,
        Class<?> resultType,
        Type genericResultType,
        ExceptionRebuilder declaredExceptions) {

    public static CallTarget of(
            String serviceKey, String signature, Class<?> resultType, ExceptionRebuilder declaredExceptions) {
        return of(serviceKey, signature, resultType, resultType, declaredExceptions);
    }

    /** With the result's generic type, which a serializer that reads by declared type (json) needs. */
    public static CallTarget of(
            String serviceKey,
            String signature,
            Class<?> resultType,
            Type genericResultType,
            ExceptionRebuilder declaredExceptions) {
        return new CallTarget(
                serviceKey + "#" + signature,
                WireStrings.shortStringBytes(serviceKey),
                WireStrings.shortStringBytes(signature),
                resultType,
                genericResultType,
                declaredExceptions);
    }

    /** Rebuilds a declared exception from its carried form, or returns {@code null} when it may not. */
    @FunctionalInterface
    public interface ExceptionRebuilder {
        /** @param serializer the call's, which reads the exception's fields; {@code deadlineNanos} bounds that */
        Throwable rebuild(ExceptionValue carried, Serializer serializer, long deadlineNanos);
    }
}
