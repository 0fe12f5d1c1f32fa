package io.xrpc.server;

import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import io.xrpc.internal.Types;
import io.xrpc.transport.RequestHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One exported method bound to its implementation, resolved once at export time. Only methods
 * declared by the exported interface exist here, so a peer cannot reach any other public method
 * of the implementation class.
 */
final class ServerMethod implements RequestHandler.Route {
    private final ServiceKey serviceKey;
    private final MethodDescriptor descriptor;
    private final Object implementation;
    private final Method method;
    private final Class<?>[] boxedParameterTypes;
    private final Set<String> acceptedSerializers;
    /** The largest of the recent response sizes, decaying; 0 until the first response. */
    private final ResponseSizeEstimate responseSize = new ResponseSizeEstimate();
    private final java.util.concurrent.atomic.AtomicBoolean resultFailed = new java.util.concurrent.atomic.AtomicBoolean();

    private final boolean direct;
    private final java.util.function.Function<io.xrpc.common.Invocation, CompletableFuture<Object>> invoker =
            inv -> invoke(inv.arguments());
    private final java.util.concurrent.atomic.AtomicBoolean heldLoop = new java.util.concurrent.atomic.AtomicBoolean();

    ServerMethod(ServiceKey serviceKey, MethodDescriptor descriptor, Object implementation,
                 Set<String> acceptedSerializers, boolean direct) {
        this.direct = direct;
        this.serviceKey = serviceKey;
        this.descriptor = descriptor;
        this.implementation = implementation;
        this.acceptedSerializers = acceptedSerializers;
        this.method = descriptor.method();
        // A non-public interface (common in tests and examples) needs this to be callable.
        this.method.trySetAccessible();
        Class<?>[] p = descriptor.parameterTypes();
        this.boxedParameterTypes = new Class<?>[p.length];
        for (int i = 0; i < p.length; i++) {
            boxedParameterTypes[i] = Types.box(p[i]);
        }
    }

    @Override
    public ServiceKey serviceKey() {
        return serviceKey;
    }

    @Override
    public MethodDescriptor descriptor() {
        return descriptor;
    }

    /** Whether the service takes requests in serializer {@code name} ({@code ServiceOptions.serializers}). */
    @Override
    public boolean accepts(String name) {
        return acceptedSerializers.isEmpty() || acceptedSerializers.contains(name);
    }

    /** The serializers the service accepts; empty for any. */
    @Override
    public Set<String> acceptedSerializers() {
        return acceptedSerializers;
    }

    /**
     * About how large this method's responses are: the largest seen lately, 0 before the first
     * ({@link ResponseSizeEstimate}). The server admits a connection's requests while their
     * expected responses fit its write buffer.
     */
    @Override
    public int expectedResponseBytes() {
        return responseSize.get();
    }

    @Override
    public boolean direct() {
        return direct;
    }

    @Override
    public boolean firstLoopHold() {
        return !heldLoop.get() && heldLoop.compareAndSet(false, true);
    }

    /** True the first time a result of this method could not be written, so that it is logged once. */
    @Override
    public boolean firstResultFailure() {
        return !resultFailed.get() && resultFailed.compareAndSet(false, true);
    }

    /** Records the size of a response just encoded. */
    void recordResponseBytes(int bytes) {
        responseSize.record(bytes);
    }

    /**
     * Checks that decoded arguments fit the declared parameters, so a confused or hostile peer gets
     * a clear error rather than a reflection failure. Returns the problem, or {@code null}.
     */
    @Override
    public String checkArguments(Object[] args) {
        if (args.length != boxedParameterTypes.length) {
            return descriptor + " takes " + boxedParameterTypes.length + " arguments, got " + args.length;
        }
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a == null) {
                if (descriptor.parameterTypes()[i].isPrimitive()) {
                    return "argument " + i + " of " + descriptor + " is null (expected: "
                            + descriptor.parameterTypes()[i] + ")";
                }
            } else if (!boxedParameterTypes[i].isInstance(a)) {
                return "argument " + i + " of " + descriptor + " is a " + a.getClass().getName()
                        + " (expected: " + descriptor.parameterTypes()[i].getName() + ")";
            }
        }
        return null;
    }

    /** Runs the implementation. A returned future is passed through; a throw becomes a failed future. */
    @SuppressWarnings("unchecked")
    /** The end of the server's interceptor chain for this method: made once, not per call. */
    java.util.function.Function<io.xrpc.common.Invocation, CompletableFuture<Object>> invoker() {
        return invoker;
    }

    CompletableFuture<Object> invoke(Object[] args) {
        try {
            Object r = method.invoke(implementation, args);
            if (descriptor.isAsync()) {
                return r == null ? CompletableFuture.completedFuture(null) : (CompletableFuture<Object>) r;
            }
            return CompletableFuture.completedFuture(r);
        } catch (InvocationTargetException e) {
            return CompletableFuture.failedFuture(e.getCause());
        } catch (IllegalAccessException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
