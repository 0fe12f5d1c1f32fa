package io.xrpc.common;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;

/**
 * One remotely callable method, parsed once from its {@link Method} and cached by client and server.
 *
 * <p>The {@linkplain #signature() signature} ({@code name(type,type)}) names the method on the wire,
 * so overloads are told apart. A method returning {@link CompletableFuture} is
 * {@linkplain #isAsync() asynchronous}; its {@linkplain #resultType() result type} is the future's
 * type argument.
 */
public final class MethodDescriptor {
    private final Method method;
    private final String signature;
    private final Class<?>[] parameterTypes;
    private final boolean async;
    private final Class<?> resultType;
    private final Type genericResultType;
    private final Class<?>[] exceptionTypes;

    private MethodDescriptor(Method method) {
        this.method = method;
        this.exceptionTypes = method.getExceptionTypes();
        this.parameterTypes = method.getParameterTypes();
        this.signature = signatureOf(method);
        this.async = method.getReturnType() == CompletableFuture.class;
        if (async) {
            Type g = method.getGenericReturnType();
            Type arg = g instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            this.genericResultType = arg;
            this.resultType = rawType(arg);
        } else {
            this.genericResultType = method.getGenericReturnType();
            this.resultType = method.getReturnType();
        }
    }

    /**
     * The exceptions the method declares in its {@code throws} clause: those (and their subclasses)
     * travel back to the caller as themselves. Shared: do not modify.
     */
    public Class<?>[] exceptionTypes() {
        return exceptionTypes;
    }

    public static MethodDescriptor of(Method method) {
        return new MethodDescriptor(method);
    }

    /** {@code name(java.lang.String,int[])}: the method's name on the wire. */
    public static String signatureOf(Method method) {
        StringJoiner j = new StringJoiner(",", method.getName() + "(", ")");
        for (Class<?> p : method.getParameterTypes()) {
            j.add(p.getTypeName());
        }
        return j.toString();
    }

    static Class<?> rawType(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return rawType(p.getRawType());
        }
        return Object.class;
    }

    public Method method() {
        return method;
    }

    public String name() {
        return method.getName();
    }

    public String signature() {
        return signature;
    }

    /** The declared parameter types. The array is shared: do not modify it. */
    public Class<?>[] parameterTypes() {
        return parameterTypes;
    }

    /** True when the method returns {@link CompletableFuture} and so blocks no thread. */
    public boolean isAsync() {
        return async;
    }

    /** The type of the value the call produces: the return type, or the future's type argument. */
    public Class<?> resultType() {
        return resultType;
    }

    /** Generic form of {@link #resultType()}. */
    public Type genericResultType() {
        return genericResultType;
    }

    /** True for {@code void} and {@code CompletableFuture<Void>}. */
    public boolean isVoid() {
        return resultType == void.class || resultType == Void.class;
    }

    @Override
    public String toString() {
        return method.getDeclaringClass().getName() + "#" + signature;
    }
}
