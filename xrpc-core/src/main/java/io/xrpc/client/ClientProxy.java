package io.xrpc.client;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.netty.NettyClientTransport;
import io.xrpc.transport.netty.NettyTransport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The invocation handler behind a service proxy. Every interface method is parsed once, when the
 * proxy is made; a call then costs a map probe, the interceptor chain and the transport.
 * {@code Object} methods are answered locally and default methods run locally.
 */
final class ClientProxy implements InvocationHandler {
    /** Extra wait beyond a call's deadline before a blocked caller gives up on its own. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Class<?> iface;
    private final ServiceKey key;
    private final Map<Method, ClientMethod> methods;
    private final List<Endpoint> addresses;
    private final AtomicInteger nextAddress = new AtomicInteger();
    private final Serializer serializer;
    private final Compressor compressor;
    private final List<ClientInterceptor> interceptors;
    private final NettyClientTransport transport;

    record ClientMethod(MethodDescriptor descriptor, NettyClientTransport.CallTarget target, long timeoutMillis) {
    }

    ClientProxy(Class<?> iface, ServiceKey key, List<Endpoint> addresses, Serializer serializer, Compressor compressor,
                Duration timeout, Map<String, Duration> methodTimeouts, List<ClientInterceptor> interceptors,
                NettyClientTransport transport) {
        this.iface = iface;
        this.key = key;
        this.addresses = List.copyOf(addresses);
        this.serializer = serializer;
        this.compressor = compressor;
        this.interceptors = List.copyOf(interceptors);
        this.transport = transport;
        Map<Method, ClientMethod> m = new HashMap<>();
        String serviceKey = key.toString();
        for (Method method : iface.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault()) {
                continue;
            }
            MethodDescriptor d = MethodDescriptor.of(method);
            Duration t = methodTimeouts.getOrDefault(method.getName(), timeout);
            m.put(method, new ClientMethod(d, NettyClientTransport.CallTarget.of(serviceKey, d.signature(),
                    d.resultType()), t.toMillis()));
        }
        this.methods = Map.copyOf(m);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        ClientMethod m = methods.get(method);
        if (m == null) {
            return invokeLocally(proxy, method, args);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis());
        Invocation inv = new Invocation(key, m.descriptor(), args, null, null, deadline);
        if (m.descriptor().isAsync()) {
            return call(m, inv);
        }
        if (NettyTransport.isIoThread()) {
            throw new IllegalStateException("synchronous call " + m.descriptor() + " made on an XRpc event-loop thread"
                    + " would block the loop that must read its response; call it from another thread or use a"
                    + " method returning CompletableFuture");
        }
        CompletableFuture<Object> f = call(m, inv);
        try {
            return f.get(deadline - System.nanoTime() + GRACE_NANOS, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw onCallerThread(e.getCause());
        } catch (TimeoutException e) {
            // The deadline timer should have ended the call; this is the backstop that keeps a
            // caller from ever waiting forever.
            throw new RpcException(RpcStatus.DEADLINE_EXCEEDED, m.target().description() + " timed out after "
                    + m.timeoutMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(false);
            throw new RpcException(RpcStatus.CANCELLED, m.target().description() + ": interrupted while waiting", e);
        }
    }

    private CompletableFuture<Object> call(ClientMethod m, Invocation inv) {
        try {
            return proceed(0, m, inv);
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    private CompletableFuture<Object> proceed(int index, ClientMethod m, Invocation inv) {
        if (index == interceptors.size()) {
            return send(m, inv);
        }
        CompletableFuture<Object> f = interceptors.get(index).intercept(inv, next -> proceed(index + 1, m, next));
        if (f == null) {
            return CompletableFuture.failedFuture(new RpcException(RpcStatus.INTERNAL, "client interceptor "
                    + interceptors.get(index).getClass().getName() + " returned null (expected: a future)"));
        }
        return f;
    }

    private CompletableFuture<Object> send(ClientMethod m, Invocation inv) {
        if (addresses.isEmpty()) {
            return CompletableFuture.failedFuture(new RpcException(RpcStatus.UNAVAILABLE, "no provider address for "
                    + key + " (expected: ReferenceOptions.address(\"host:port\"))"));
        }
        Endpoint ep = addresses.size() == 1 ? addresses.get(0)
                : addresses.get(Math.floorMod(nextAddress.getAndIncrement(), addresses.size()));
        inv.remote(ep);
        return transport.send(inv, m.target(), ep, serializer, compressor, m.timeoutMillis());
    }

    /** A fresh exception whose stack trace shows the caller, not the event loop that failed the call. */
    private static Throwable onCallerThread(Throwable t) {
        if (t instanceof RpcException r) {
            RpcException copy = r.status() == RpcStatus.APPLICATION_ERROR
                    ? new RpcException(r.getMessage(), r.remoteClassName(), r.remoteMessage(), r.remoteStackTrace())
                    : new RpcException(r.status(), r.getMessage(), r.getCause());
            return copy;
        }
        return t;
    }

    private Object invokeLocally(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "XRpcProxy[" + key + " -> " + addresses + ", " + serializer.name() + "/" + compressor.name() + "]";
                default:
                    throw new UnsupportedOperationException(method.toString());
            }
        }
        if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        throw new UnsupportedOperationException(method + " is not part of " + iface.getName());
    }
}
