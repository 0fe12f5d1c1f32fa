package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Cluster;
import io.xrpc.cluster.Providers;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.internal.Invocations;
import io.xrpc.transport.CallTarget;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * Calls a remote service without its classes (generic invocation): the method is named with its
 * parameter types, as Dubbo's {@code GenericService.$invoke} names it, and arguments and results
 * are JSON-shaped values: {@code Map}s for objects, {@code List}s for arrays, {@code String},
 * {@code Number}, {@code Boolean} and {@code null}. The provider reads the arguments as the types
 * its method declares, through its allow-list and read limits like any call, so a value it cannot
 * build fails the call {@link RpcStatus#SERIALIZATION_ERROR} naming the argument, the type and the
 * problem.
 *
 * <pre>{@code
 * GenericService orders = client.generic("com.acme.Orders",
 *         ReferenceOptions.builder().address("127.0.0.1:20880").build());
 * Object order = orders.invoke("find", List.of("long"), List.of(42));   // {"id":42,"items":[...]}
 * }</pre>
 *
 * <p>An exception the method declares comes back as a {@link GenericException} with its class
 * name, message and fields; every other failure is an {@link RpcException}, as for a typed proxy.
 * Calls are treated as not idempotent: failover retries one only where it surely did not run.
 * Made by {@link RpcClient#generic}; thread-safe.
 */
public final class GenericService {
    /**
     * Methods one reference remembers at most. Past it a method is made for its call and forgotten
     * when the call ends, so a caller naming ever new ones costs only its calls in flight.
     */
    static final int MAX_METHODS = 1024;
    /** The serializer every generic call travels in: plain JSON, which the provider reads as its declared types. */
    static final String SERIALIZER = "json";

    private final ServiceKey key;
    private final String serviceKey;
    private final Providers providers;
    private final Duration timeout;
    private final Map<String, Duration> methodTimeouts;
    private final CallPath path;
    /** Each method called so far, by signature; its attempts found again by the descriptor's identity. */
    private final Map<String, Method> methods = new ConcurrentHashMap<>();

    private final Map<MethodDescriptor, Attempts> attempts = new ConcurrentHashMap<>();

    /** A method's model and attempts; {@code remembered} false for one made past {@link #MAX_METHODS}. */
    private record Method(ClientMethod model, Attempts attempts, boolean remembered) {}

    GenericService(
            Providers providers,
            Duration timeout,
            Map<String, Duration> methodTimeouts,
            ClientConfig config,
            Cluster cluster) {
        this.key = providers.key();
        this.serviceKey = key.toString();
        this.providers = providers;
        this.timeout = timeout;
        this.methodTimeouts = methodTimeouts;
        this.path = new CallPath(key.interfaceName(), config, cluster, attempts::get);
    }

    /** The service this reference calls. */
    public ServiceKey key() {
        return key;
    }

    /**
     * Calls {@code method} and blocks until its answer or deadline.
     *
     * @param parameterTypes the declared parameter types as Java writes them ({@code long},
     *                       {@code java.lang.String}, {@code com.acme.Order}, {@code int[]}): they pick
     *                       the overload
     * @param arguments      one JSON-shaped value per parameter
     * @return the result as JSON-shaped values, {@code null} for {@code void}
     * @throws GenericException when the method threw an exception it declares
     * @throws RpcException     for every other failure, with its status
     */
    public Object invoke(String method, List<String> parameterTypes, List<?> arguments) throws GenericException {
        if (providers.onTransportThread()) {
            throw new IllegalStateException("synchronous generic call of " + method + " made on an XRpc event-loop"
                    + " thread would block the loop that must read its response; use invokeAsync");
        }
        Method m = method(method, parameterTypes, arguments);
        long deadline =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.model().timeoutMillis());
        try {
            return CallPath.await(call(m, arguments, deadline), m.model(), deadline);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t); // nothing checked is thrown but GenericException, a runtime one
        }
    }

    /** As {@link #invoke}, blocking no thread: the future fails with what {@link #invoke} throws. */
    public CompletableFuture<Object> invokeAsync(String method, List<String> parameterTypes, List<?> arguments) {
        Method m;
        try {
            m = method(method, parameterTypes, arguments);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long deadline =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.model().timeoutMillis());
        return CallPath.declaredAsItself(call(m, arguments, deadline));
    }

    /**
     * Calls {@code method}, one whose provider streams (it returns a {@code Flow.Publisher} or a
     * {@code Flux}), and returns its messages as JSON-shaped values: cold, each subscriber its own
     * call, under the subscriber's demand as a typed proxy's stream is. A generic caller reads a
     * stream; it cannot send one.
     */
    public Flow.Publisher<Object> stream(String method, List<String> parameterTypes, List<?> arguments) {
        Method m = method(method, parameterTypes, arguments, MethodDescriptor.Shape.SERVER_STREAM);
        return new StreamPublisher(
                (model, inv) -> called(m, inv),
                m.model(),
                key,
                arguments.toArray(),
                providers.serializer().name());
    }

    private CompletableFuture<Object> call(Method m, List<?> arguments, long deadline) {
        Invocation inv = new Invocation(key, m.model().descriptor(), arguments.toArray(), null, null, deadline);
        Invocations.serializer(inv, providers.serializer().name());
        return called(m, inv);
    }

    private CompletableFuture<Object> called(Method m, Invocation inv) {
        if (m.remembered()) {
            return path.call(m.model(), inv);
        }
        MethodDescriptor d = m.model().descriptor();
        attempts.put(d, m.attempts());
        return path.call(m.model(), inv).whenComplete((v, e) -> attempts.remove(d));
    }

    private Method method(String name, List<String> parameterTypes, List<?> arguments) {
        return method(name, parameterTypes, arguments, MethodDescriptor.Shape.UNARY);
    }

    private Method method(String name, List<String> parameterTypes, List<?> arguments, MethodDescriptor.Shape shape) {
        if (parameterTypes.size() > 255) {
            throw new IllegalArgumentException(parameterTypes.size() + " parameter types for " + serviceKey + "#" + name
                    + " (a Java method has at most 255)");
        }
        if (parameterTypes.size() != arguments.size()) {
            throw new IllegalArgumentException(parameterTypes.size() + " parameter types " + parameterTypes + " but "
                    + arguments.size() + " arguments for " + serviceKey + "#" + name);
        }
        MethodDescriptor d = MethodDescriptor.generic(key.interfaceName(), name, parameterTypes, shape);
        String remembered = shape.name() + " " + d.signature(); // a stream and a call of one name are two methods here
        Method known = methods.get(remembered);
        if (known != null) {
            return known;
        }
        long millis = methodTimeouts.getOrDefault(name, timeout).toMillis();
        ClientMethod model = new ClientMethod(
                d, CallTarget.of(serviceKey, d.signature(), Object.class, GenericException::of), millis, false);
        Attempts a = model.attemptsOf(providers);
        if (methods.size() >= MAX_METHODS) {
            return new Method(model, a, false);
        }
        Method made = new Method(model, a, true);
        attempts.put(d, made.attempts()); // first: a racing caller may use it as soon as it is listed
        Method raced = methods.putIfAbsent(remembered, made);
        if (raced != null) {
            attempts.remove(d);
            return raced;
        }
        return made;
    }

    /** Attempts held now: the methods remembered and those of calls in flight past {@link #MAX_METHODS}. */
    int attemptsHeld() {
        return attempts.size();
    }

    @Override
    public String toString() {
        return "GenericService[" + serviceKey + " -> " + providers + "]";
    }
}
