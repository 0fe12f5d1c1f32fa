package io.xrpc.common;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;

/**
 * One remotely callable method, parsed once from its {@link Method} and cached by client and server.
 *
 * <p>The {@linkplain #signature() signature} ({@code name(type,type)}) names the method on the wire,
 * so overloads are told apart. A method returning {@link CompletableFuture} is
 * {@linkplain #isAsync() asynchronous}; its {@linkplain #resultType() result type} is the future's
 * type argument.
 *
 * <p>A {@linkplain #generic generic} descriptor names a method by its signature alone, for a caller
 * that has no interface to load (generic invocation): it has no {@link #method()}, and its
 * parameters and result are plain {@code Object}s, carried as JSON-shaped values.
 */
public final class MethodDescriptor {
    private final Method method;
    private final String name;
    private final String signature;
    private final Class<?>[] parameterTypes;
    private final Type[] genericParameterTypes;
    private final String declaringName;
    private final boolean async;
    private final Class<?> resultType;
    private final Type genericResultType;
    private final Class<?>[] exceptionTypes;

    private MethodDescriptor(Method method) {
        this.method = method;
        this.name = method.getName();
        this.exceptionTypes = method.getExceptionTypes();
        this.parameterTypes = method.getParameterTypes();
        this.genericParameterTypes = method.getGenericParameterTypes();
        this.declaringName = method.getDeclaringClass().getName();
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

    private MethodDescriptor(String declaringName, String name, List<String> parameterTypeNames) {
        this.method = null;
        this.declaringName = declaringName;
        this.exceptionTypes = new Class<?>[0];
        this.parameterTypes = new Class<?>[parameterTypeNames.size()];
        Arrays.fill(parameterTypes, Object.class);
        this.genericParameterTypes = parameterTypes;
        StringJoiner j = new StringJoiner(",", name + "(", ")");
        parameterTypeNames.forEach(j::add);
        this.signature = j.toString();
        this.name = name;
        this.async = false;
        this.resultType = Object.class;
        this.genericResultType = Object.class;
    }

    /**
     * A method known only by name and parameter type names ({@code long}, {@code java.lang.String},
     * {@code com.acme.Order}, as {@link #signatureOf} writes them), for generic invocation.
     *
     * @throws IllegalArgumentException when a name is blank or holds characters no Java name has
     */
    public static MethodDescriptor generic(String serviceInterface, String name, List<String> parameterTypeNames) {
        checkName("method name", name);
        for (String t : parameterTypeNames) {
            checkName("parameter type", t);
        }
        return new MethodDescriptor(serviceInterface, name, List.copyOf(parameterTypeNames));
    }

    private static void checkName(String what, String s) {
        if (s == null
                || s.isBlank()
                || s.length() > 512
                || s.chars()
                        .anyMatch(c -> c == '('
                                || c == ')'
                                || c == ','
                                || Character.isWhitespace(c)
                                || Character.isISOControl(c))) {
            throw new IllegalArgumentException(what + ": " + (s == null ? "null" : "'" + s + "'")
                    + " (expected: a Java name such as long, java.lang.String or com.acme.Order[])");
        }
    }

    /** True for a descriptor made by {@link #generic}: it has no {@link #method()}. */
    public boolean isGeneric() {
        return method == null;
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

    /** The interface method; {@code null} for a {@linkplain #generic generic} descriptor. */
    public Method method() {
        return method;
    }

    public String name() {
        return name;
    }

    public String signature() {
        return signature;
    }

    /** The declared parameter types. The array is shared: do not modify it. */
    public Class<?>[] parameterTypes() {
        return parameterTypes;
    }

    /** The declared parameter types with their type arguments ({@code List<Order>}). Shared: do not modify. */
    public Type[] genericParameterTypes() {
        return genericParameterTypes;
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
        return declaringName + "#" + signature;
    }
}
