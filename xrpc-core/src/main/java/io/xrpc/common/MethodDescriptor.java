package io.xrpc.common;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * One remotely callable method, parsed once from its {@link Method} and cached by client and server.
 *
 * <p>The {@linkplain #signature() signature} ({@code name(type,type)}) names the method on the wire,
 * so overloads are told apart. A method returning {@link CompletableFuture} is
 * {@linkplain #isAsync() asynchronous}; its {@linkplain #resultType() result type} is the future's
 * type argument.
 *
 * <p>A method {@linkplain #shape() streams} when its signature says so, with the JDK's reactive
 * types: returning {@link Flow.Publisher} (the provider sends many messages), taking one
 * {@code Flow.Publisher} parameter (the caller sends many), or both. Its
 * {@linkplain #resultType() result type} is then the type of one message the provider sends, and
 * {@link #streamType()} the type of one the caller sends. Where Reactor is on the class path,
 * {@code Flux<T>} may stand for {@code Flow.Publisher<T>} (as a result or the stream parameter) and
 * {@code Mono<T>} for {@code CompletableFuture<T>} ({@link #reactiveResult()},
 * {@link #reactiveStream()}); they travel the same way.
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
    private final Shape shape;
    /** The index of the {@code Flow.Publisher} parameter, or -1. */
    private final int streamParameter;

    private final Class<?> streamType;
    private final Type genericStreamType;
    private final Class<?>[] wireParameterTypes;
    private final Type[] wireGenericParameterTypes;
    private final boolean reactiveResult;
    private final boolean reactiveStream;

    static final String FLUX = "reactor.core.publisher.Flux";
    static final String MONO = "reactor.core.publisher.Mono";

    /** How many messages each side of a call sends. */
    public enum Shape {
        /** One request, one answer. */
        UNARY,
        /** One request; the provider sends a stream of messages ({@code Flow.Publisher<T> m(...)}). */
        SERVER_STREAM,
        /**
         * The caller sends a stream of messages and the provider answers once
         * ({@code CompletableFuture<R> m(Flow.Publisher<T>)}).
         */
        CLIENT_STREAM,
        /** Both send a stream ({@code Flow.Publisher<R> m(Flow.Publisher<T>)}). */
        BIDI_STREAM;

        /** Whether the provider sends a stream. */
        public boolean providerStreams() {
            return this == SERVER_STREAM || this == BIDI_STREAM;
        }

        /** Whether the caller sends a stream. */
        public boolean callerStreams() {
            return this == CLIENT_STREAM || this == BIDI_STREAM;
        }
    }

    private MethodDescriptor(Method method) {
        this.method = method;
        this.name = method.getName();
        this.exceptionTypes = method.getExceptionTypes();
        this.parameterTypes = method.getParameterTypes();
        this.genericParameterTypes = method.getGenericParameterTypes();
        this.declaringName = method.getDeclaringClass().getName();
        this.signature = signatureOf(method);
        String returned = method.getReturnType().getName();
        boolean mono = returned.equals(MONO);
        boolean flux = returned.equals(FLUX);
        this.reactiveResult = mono || flux;
        this.async = method.getReturnType() == CompletableFuture.class || mono;
        boolean publishes = method.getReturnType() == Flow.Publisher.class || flux;
        if (async || publishes) {
            Type arg = typeArgument(method.getGenericReturnType());
            this.genericResultType = arg;
            this.resultType = rawType(arg);
        } else {
            this.genericResultType = method.getGenericReturnType();
            this.resultType = method.getReturnType();
        }
        int stream = -1;
        for (int i = 0; i < parameterTypes.length; i++) {
            if (parameterTypes[i] == Flow.Publisher.class
                    || parameterTypes[i].getName().equals(FLUX)) {
                if (stream >= 0) {
                    throw new IllegalArgumentException(method + " takes two stream parameters (expected: at"
                            + " most one Flow.Publisher or Flux, the stream the caller sends)");
                }
                stream = i;
            }
        }
        this.reactiveStream = stream >= 0 && parameterTypes[stream].getName().equals(FLUX);
        if (stream >= 0 && !publishes && !async) {
            throw new IllegalArgumentException(method + " takes a stream and returns "
                    + method.getGenericReturnType().getTypeName() + " (expected: CompletableFuture<R> or Mono<R>,"
                    + " completed once the provider has read the stream, or a Flow.Publisher or Flux): its"
                    + " provider would block a call thread while it reads");
        }
        this.streamParameter = stream;
        if (stream >= 0) {
            this.genericStreamType = typeArgument(genericParameterTypes[stream]);
            this.streamType = rawType(genericStreamType);
            this.wireParameterTypes = without(parameterTypes, stream, new Class<?>[parameterTypes.length - 1]);
            this.wireGenericParameterTypes =
                    without(genericParameterTypes, stream, new Type[parameterTypes.length - 1]);
        } else {
            this.genericStreamType = null;
            this.streamType = null;
            this.wireParameterTypes = parameterTypes;
            this.wireGenericParameterTypes = genericParameterTypes;
        }
        this.shape = publishes
                ? (stream >= 0 ? Shape.BIDI_STREAM : Shape.SERVER_STREAM)
                : stream >= 0 ? Shape.CLIENT_STREAM : Shape.UNARY;
    }

    /** The type argument of {@code Flow.Publisher<T>} or {@code CompletableFuture<T>}; {@code Object} when raw. */
    private static Type typeArgument(Type g) {
        return g instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
    }

    private static <T> T[] without(T[] all, int index, T[] into) {
        System.arraycopy(all, 0, into, 0, index);
        System.arraycopy(all, index + 1, into, index, all.length - index - 1);
        return into;
    }

    private MethodDescriptor(String declaringName, String name, List<String> parameterTypeNames, Shape shape) {
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
        this.reactiveResult = false;
        this.reactiveStream = false;
        this.resultType = Object.class;
        this.genericResultType = Object.class;
        this.shape = shape;
        this.streamParameter = -1;
        this.streamType = null;
        this.genericStreamType = null;
        this.wireParameterTypes = parameterTypes;
        this.wireGenericParameterTypes = genericParameterTypes;
    }

    /**
     * A method known only by name and parameter type names ({@code long}, {@code java.lang.String},
     * {@code com.acme.Order}, as {@link #signatureOf} writes them), for generic invocation.
     *
     * @throws IllegalArgumentException when a name is blank or holds characters no Java name has
     */
    public static MethodDescriptor generic(String serviceInterface, String name, List<String> parameterTypeNames) {
        return generic(serviceInterface, name, parameterTypeNames, Shape.UNARY);
    }

    /**
     * As {@link #generic(String, String, List)}, for a method of {@code shape}: {@link Shape#UNARY}
     * or {@link Shape#SERVER_STREAM} (a generic caller reads a stream of values; it sends none).
     */
    public static MethodDescriptor generic(
            String serviceInterface, String name, List<String> parameterTypeNames, Shape shape) {
        checkName("method name", name);
        for (String t : parameterTypeNames) {
            checkName("parameter type", t);
        }
        if (shape.callerStreams()) {
            throw new IllegalArgumentException(name + ": a generic call cannot send a stream (expected: a method of"
                    + " one answer, or one whose provider streams)");
        }
        return new MethodDescriptor(serviceInterface, name, List.copyOf(parameterTypeNames), shape);
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

    /** True when the method returns {@link CompletableFuture} (or Reactor's {@code Mono}) and so blocks no thread. */
    public boolean isAsync() {
        return async;
    }

    /** True when the method returns Reactor's {@code Flux} or {@code Mono} rather than the JDK's types. */
    public boolean reactiveResult() {
        return reactiveResult;
    }

    /** True when the stream parameter is Reactor's {@code Flux} rather than a {@code Flow.Publisher}. */
    public boolean reactiveStream() {
        return reactiveStream;
    }

    /** The type of the value the call produces: the return type, or the future's type argument. */
    public Class<?> resultType() {
        return resultType;
    }

    /** Generic form of {@link #resultType()}. */
    public Type genericResultType() {
        return genericResultType;
    }

    /** How many messages each side sends: {@link Shape#UNARY} for an ordinary method. */
    public Shape shape() {
        return shape;
    }

    /** Whether either side sends a stream. */
    public boolean isStream() {
        return shape != Shape.UNARY;
    }

    /** The index of the {@code Flow.Publisher} parameter the caller streams, or -1. */
    public int streamParameter() {
        return streamParameter;
    }

    /** The type of one message the caller streams, or {@code null} when it streams nothing. */
    public Class<?> streamType() {
        return streamType;
    }

    /** Generic form of {@link #streamType()}. */
    public Type genericStreamType() {
        return genericStreamType;
    }

    /**
     * The parameter types a request carries: all but the stream parameter, whose messages follow the
     * request. Shared: do not modify.
     */
    public Class<?>[] wireParameterTypes() {
        return wireParameterTypes;
    }

    /** Generic form of {@link #wireParameterTypes()}. Shared: do not modify. */
    public Type[] wireGenericParameterTypes() {
        return wireGenericParameterTypes;
    }

    /** The arguments a request carries: {@code arguments} without the stream parameter's. */
    public Object[] wireArguments(Object[] arguments) {
        if (streamParameter < 0) {
            return arguments;
        }
        return without(arguments, streamParameter, new Object[arguments.length - 1]);
    }

    /** {@code wire} with {@code stream} put back in the stream parameter's place. */
    public Object[] withStream(Object[] wire, Object stream) {
        if (streamParameter < 0) {
            return wire;
        }
        Object[] all = new Object[wire.length + 1];
        System.arraycopy(wire, 0, all, 0, streamParameter);
        all[streamParameter] = stream;
        System.arraycopy(wire, streamParameter, all, streamParameter + 1, wire.length - streamParameter);
        return all;
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
