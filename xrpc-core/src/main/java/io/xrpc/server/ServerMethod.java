package io.xrpc.server;

import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.internal.InterceptorChain;
import io.xrpc.internal.ReactorTypes;
import io.xrpc.internal.Types;
import io.xrpc.transport.Routes;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One exported method bound to its implementation, resolved once at export time. Only methods
 * declared by the exported interface exist here, so a peer cannot reach any other public method
 * of the implementation class.
 */
final class ServerMethod implements Routes.Route {
    private final ServiceKey serviceKey;
    private final MethodDescriptor descriptor;
    private final Object implementation;
    private final Method method;
    private final Class<?>[] boxedParameterTypes;
    private final Set<String> acceptedSerializers;

    private final boolean direct;
    /** The server's interceptors joined to this method's implementation, once. */
    private final Function<Invocation, CompletableFuture<Object>> call;
    /** The service's calls between entering the interceptors and being answered. */
    private final LongAdder running;

    private final Consumer<RpcStatus> leave;

    ServerMethod(
            ServiceKey serviceKey,
            MethodDescriptor descriptor,
            Object implementation,
            Set<String> acceptedSerializers,
            boolean direct,
            InterceptorChain<ServerInterceptor, ServerInterceptor.Chain> interceptors,
            LongAdder running) {
        this.running = running;
        this.leave = status -> running.decrement();
        this.direct = direct;
        this.call = interceptors.link(inv -> invoke(inv.arguments()));
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

    @Override
    public boolean direct() {
        return direct;
    }

    /** The transport's, opaque here: see {@link Routes.Route#transportState}. */
    private final AtomicReference<Object> transportState = new AtomicReference<>();

    @Override
    public Object transportState(Supplier<?> make) {
        Object state = transportState.get();
        if (state == null) {
            Object fresh = make.get();
            state = transportState.compareAndExchange(null, fresh);
            if (state == null) {
                state = fresh;
            }
        }
        return state;
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
            } else if (i == descriptor.streamParameter()) {
                continue; // the caller's messages, XRpc's own publisher (made a Flux as the call runs)
            } else if (!boxedParameterTypes[i].isInstance(a)) {
                return "argument " + i + " of " + descriptor + " is a "
                        + a.getClass().getName() + " (expected: " + descriptor.parameterTypes()[i].getName() + ")";
            }
        }
        return null;
    }

    /** Runs a call through the server's interceptors to the implementation; never throws. */
    CompletableFuture<Object> call(Invocation invocation) {
        running.increment();
        // Uncounted when answered, which happens exactly once (the implementation's future may
        // never complete: the deadline answers it), at once if it was answered already.
        invocation.whenAnswered(leave);
        return call.apply(invocation);
    }

    /** Runs the implementation. A returned future is passed through; a throw becomes a failed future. */
    @SuppressWarnings("unchecked")
    private CompletableFuture<Object> invoke(Object[] args) {
        try {
            if (descriptor.reactiveStream()) {
                int i = descriptor.streamParameter();
                args[i] = ReactorTypes.toFlux((Flow.Publisher<?>) args[i]);
            }
            Object r = method.invoke(implementation, args);
            if (descriptor.reactiveResult()) {
                return descriptor.isAsync()
                        ? ReactorTypes.toFuture(r) // a Mono: its value, once
                        : CompletableFuture.completedFuture(ReactorTypes.toFlow(r)); // a Flux: its stream
            }
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
