package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Cluster;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Idempotent;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.InterceptorChain;
import io.xrpc.internal.RemoteExceptions;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.CallTarget;
import io.xrpc.transport.ClientTransport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The invocation handler behind a service proxy. Every interface method is parsed once, when the
 * proxy is made; a call then costs a map probe, the interceptor chain and the transport.
 * {@code Object} methods are answered locally and default methods run locally.
 */
final class ClientProxy implements InvocationHandler {
    /** Extra wait beyond a call's last deadline before a blocked caller gives up on its own. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Class<?> iface;
    private final ServiceKey key;
    private final Map<Method, ClientMethod> methods;
    private final Map<MethodDescriptor, ClientMethod> byDescriptor;
    private final Directory directory;
    private final Serializer serializer;
    private final Compressor compressor;
    private final InterceptorChain<ClientInterceptor> chain;
    /** Null when calls carry no credentials. */
    private final CallCredentials credentials;
    private final ClientTransport transport;
    private final LoadBalancer loadBalancer;
    private final Cluster cluster;
    private final int retries;
    private final Attempts attempts = new ProxyAttempts();

    record ClientMethod(MethodDescriptor descriptor, CallTarget target, long timeoutMillis,
                        boolean idempotent) {
    }

    ClientProxy(Class<?> iface, ServiceKey key, Directory directory, Serializer serializer, Compressor compressor,
                ClassAllowList allowList, Duration timeout, Map<String, Duration> methodTimeouts, List<ClientInterceptor> interceptors,
                CallCredentials credentials, ClientTransport transport, LoadBalancer loadBalancer, Cluster cluster, int retries) {
        this.iface = iface;
        this.key = key;
        this.directory = directory;
        this.serializer = serializer;
        this.compressor = compressor;
        this.credentials = credentials;
        this.chain = new InterceptorChain<>(interceptors, (i, inv, next) -> i.intercept(inv, next::apply), "client");
        this.transport = transport;
        this.loadBalancer = loadBalancer;
        this.cluster = cluster;
        this.retries = retries;
        Map<Method, ClientMethod> m = new HashMap<>();
        String serviceKey = key.toString();
        for (Method method : iface.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault()) {
                continue;
            }
            MethodDescriptor d = MethodDescriptor.of(method);
            Duration t = methodTimeouts.getOrDefault(method.getName(), timeout);
            Class<?>[] declared = d.exceptionTypes();
            Function<Object, Throwable> rebuild = declared.length == 0 ? null
                    : carried -> RemoteExceptions.rebuild(carried, declared, allowList::isAllowed,
                            iface.getClassLoader());
            m.put(method, new ClientMethod(d, CallTarget.of(serviceKey, d.signature(),
                    d.resultType(), rebuild), t.toMillis(), method.isAnnotationPresent(Idempotent.class)));
        }
        this.methods = Map.copyOf(m);
        Map<MethodDescriptor, ClientMethod> bd = new java.util.IdentityHashMap<>();
        m.values().forEach(cm -> bd.put(cm.descriptor(), cm));
        this.byDescriptor = bd;
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
            CompletableFuture<Object> f = call(m, inv);
            if (m.target().declaredExceptions() == null) {
                return f;
            }
            // The caller's future fails with a declared exception as itself, as a sync call throws it.
            CompletableFuture<Object> out = new CompletableFuture<>();
            f.whenComplete((v, e) -> {
                if (e == null) {
                    out.complete(v);
                } else {
                    Throwable t = e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                            ? c.getCause() : e;
                    out.completeExceptionally(t instanceof RpcException r && r.remoteException() != null
                            ? r.remoteException() : t);
                }
            });
            return out;
        }
        if (transport.isTransportThread()) {
            throw new IllegalStateException("synchronous call " + m.descriptor() + " made on an XRpc event-loop thread"
                    + " would block the loop that must read its response; call it from another thread or use a"
                    + " method returning CompletableFuture");
        }
        CompletableFuture<Object> f = call(m, inv);
        try {
            // Each failover attempt has its own deadline; wait for all of them, then a little more.
            long bound = TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis()) * (1L + retries) + GRACE_NANOS;
            return f.get(deadline - System.nanoTime() + bound - TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis()),
                    TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw onCallerThread(e.getCause(), m);
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
        if (credentials != null) {
            String c;
            try {
                c = credentials.credentials(inv);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(new RpcException(RpcStatus.UNAUTHENTICATED,
                        m.target().description() + ": the call credentials failed: " + e, e));
            }
            if (c != null) {
                inv.attachments().put(Invocation.CREDENTIALS, c);
            }
        }
        return chain.run(inv, this::send);
    }

    private CompletableFuture<Object> send(Invocation inv) {
        return cluster.invoke(inv, attempts);
    }

    /** The reference as its cluster strategy sees it. */
    private final class ProxyAttempts implements Attempts {
        @Override
        public ServiceInstance select(Invocation inv, Set<Endpoint> excluded) {
            List<ServiceInstance> all = directory.instances();
            List<ServiceInstance> usable = all;
            // Drop what the caller excluded, what does not take our serializer, and (while others
            // remain) what is set aside after failed connects; allocate only when dropping.
            for (int i = 0; i < all.size(); i++) {
                ServiceInstance c = all.get(i);
                if (excluded.contains(c.endpoint()) || !c.accepts(serializer.name())
                        || transport.isSetAside(c.endpoint())) {
                    usable = filter(all, excluded);
                    break;
                }
            }
            if (usable.isEmpty()) {
                throw new RpcException(RpcStatus.UNAVAILABLE, all.isEmpty()
                        ? "no provider for " + key + directory.emptyReason()
                        : "no provider for " + key + " left to try (tried " + excluded + ")");
            }
            ServiceInstance chosen = loadBalancer.select(usable, inv);
            inv.remote(chosen.endpoint());
            return chosen;
        }

        private List<ServiceInstance> filter(List<ServiceInstance> all, Set<Endpoint> excluded) {
            List<ServiceInstance> healthy = new ArrayList<>(all.size());
            List<ServiceInstance> setAside = new ArrayList<>(2);
            for (ServiceInstance c : all) {
                if (excluded.contains(c.endpoint()) || !c.accepts(serializer.name())) {
                    continue;
                }
                (transport.isSetAside(c.endpoint()) ? setAside : healthy).add(c);
            }
            // Providers set aside are probed again when nothing else is left.
            return healthy.isEmpty() ? setAside : healthy;
        }

        @Override
        public CompletableFuture<Object> send(Invocation inv, ServiceInstance target) {
            ClientMethod m = byDescriptor.get(inv.method());
            inv.remote(target.endpoint());
            return transport.send(inv, m.target(), target.endpoint(), serializer, compressor, m.timeoutMillis());
        }

        @Override
        public Invocation nextAttempt(Invocation inv) {
            ClientMethod m = byDescriptor.get(inv.method());
            return new Invocation(inv.serviceKey(), inv.method(), inv.arguments(), inv.attachmentsOrNull(), null,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis()));
        }

        @Override
        public int retries() {
            return retries;
        }

        @Override
        public boolean isIdempotent(Invocation inv) {
            return byDescriptor.get(inv.method()).idempotent();
        }
    }

    /**
     * A fresh exception whose stack trace shows the caller, not the event loop that failed the call;
     * for a declared remote exception, that exception itself, its remote frames followed by the
     * caller's.
     */
    private static Throwable onCallerThread(Throwable t, ClientMethod m) {
        if (t instanceof RpcException r && r.remoteException() != null) {
            Throwable declared = r.remoteException();
            RemoteExceptions.appendCallerStack(declared, m.target().description());
            return declared;
        }
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
                    return "XRpcProxy[" + key + " -> " + directory + ", " + serializer.name() + "/" + compressor.name() + "]";
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
