package io.xrpc.transport;

import io.xrpc.protocol.codec.RpcCodec;
import java.util.function.Function;

/**
 * Per-method constants a caller prepares once: the routing strings, already encoded, the result
 * type, and for a method that declares exceptions what rebuilds a carried one ({@code null}
 * otherwise; it returns {@code null} for one it may not rebuild).
 */
public record CallTarget(String description, byte[] serviceKey, byte[] signature, Class<?> resultType,
                         Function<Object, Throwable> declaredExceptions) {

    public static CallTarget of(String serviceKey, String signature, Class<?> resultType,
                                Function<Object, Throwable> declaredExceptions) {
        return new CallTarget(serviceKey + "#" + signature, RpcCodec.shortStringBytes(serviceKey),
                RpcCodec.shortStringBytes(signature), resultType, declaredExceptions);
    }
}
