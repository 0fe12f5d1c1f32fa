package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Cluster;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.compress.Compressor;
import io.xrpc.internal.Futures;
import io.xrpc.internal.InterceptorChain;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.Serializer;
import io.xrpc.transport.ClientTransport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The invocation handler behind a service proxy: the bridge between a Java call and the RPC. It
 * blocks a synchronous caller until the answer (rethrowing a declared exception as itself) or
 * hands back the future of an asynchronous method, and adds the call's credentials before the
 * interceptors run. The method model is {@link ClientMethod} (every interface method is parsed
 * once, when the proxy is made), provider choice and sending are {@link ReferenceAttempts}, and
 * the cluster strategy sits between them. {@code Object} methods are answered locally and default
 * methods run locally.
 */
final class ClientProxy implements InvocationHandler {
    /** Extra wait beyond a call's last deadline before a blocked caller gives up on its own. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Class<?> iface;
    private final ServiceKey key;
    private final Map<Method, ClientMethod> methods;
    private final Directory directory;
    private final Serializer serializer;
    private final Compressor compressor;
    /** The client's interceptors joined to the cluster, once rather than per call. */
    private final Function<Invocation, CompletableFuture<Object>> chain;
    /** Null when calls carry no credentials. */
    private final CallCredentials credentials;
    /** Why no call may be sent with the credentials (no TLS), or null. */
    private final String credentialsRefusal;
    private final ClientTransport transport;
    private final Cluster cluster;
    /** Each method's attempts, which carry its model; found once per call, by the descriptor's identity. */
    private final Map<MethodDescriptor, Attempts> attempts;
    private final int retries;

    ClientProxy(Class<?> iface, ServiceKey key, Directory directory, Serializer serializer, Compressor compressor,
                ClassAllowList allowList, Duration timeout, Map<String, Duration> methodTimeouts, List<ClientInterceptor> interceptors,
                CallCredentials credentials, String credentialsRefusal, ClientTransport transport, LoadBalancer loadBalancer, Cluster cluster, int retries) {
        this.iface = iface;
        this.key = key;
        this.directory = directory;
        this.serializer = serializer;
        this.compressor = compressor;
        this.credentials = credentials;
        this.credentialsRefusal = credentialsRefusal;
        this.chain = new InterceptorChain<ClientInterceptor, ClientInterceptor.Chain>(interceptors,
                ClientInterceptor::intercept, next -> next::apply, "client").link(this::send);
        this.transport = transport;
        this.cluster = cluster;
        this.methods = ClientMethod.modelOf(iface, key, timeout, methodTimeouts, allowList);
        this.retries = retries;
        Map<MethodDescriptor, Attempts> byMethod = new java.util.IdentityHashMap<>();
        methods.values().forEach(cm -> byMethod.put(cm.descriptor(), new ReferenceAttempts(key, directory, serializer,
                compressor, transport, loadBalancer, retries, cm)));
        this.attempts = byMethod;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        ClientMethod m = methods.get(method);
        if (m == null) {
            return invokeLocally(proxy, method, args);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis());
        Invocation inv = new Invocation(key, m.descriptor(), args, null, null, deadline);
        inv.serializer(serializer.name());
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
                    out.completeExceptionally(declaredOr(Futures.cause(e)));
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
            if (credentialsRefusal != null) {
                return CompletableFuture.failedFuture(new RpcException(RpcStatus.UNAUTHENTICATED,
                        m.target().description() + ": not sent: " + credentialsRefusal));
            }
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
        return chain.apply(inv);
    }

    private CompletableFuture<Object> send(Invocation inv) {
        Attempts a = attempts.get(inv.method());
        if (a == null) { // an interceptor passed on an invocation of its own making
            return CompletableFuture.failedFuture(new RpcException(RpcStatus.INTERNAL, "an interceptor passed on a"
                    + " call of " + inv.method() + ", which " + iface.getName() + " does not declare"));
        }
        return cluster.invoke(inv, a);
    }

    /**
     * A fresh exception whose stack trace shows the caller, not the event loop that failed the call;
     * for a declared remote exception, that exception itself, its remote frames followed by the
     * caller's.
     */
    private static Throwable onCallerThread(Throwable t, ClientMethod m) {
        Throwable declared = declaredOr(t);
        if (declared != t) {
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

    /** The declared exception a failed call carries, or {@code t} itself. */
    private static Throwable declaredOr(Throwable t) {
        return t instanceof RpcException r && r.remoteException() != null ? r.remoteException() : t;
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
