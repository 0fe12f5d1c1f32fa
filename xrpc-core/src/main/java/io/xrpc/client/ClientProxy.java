package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Cluster;
import io.xrpc.cluster.Providers;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import io.xrpc.internal.Invocations;
import io.xrpc.internal.ReactorTypes;
import io.xrpc.serialize.ClassAllowList;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The invocation handler behind a service proxy: the bridge between a Java call and the RPC. It
 * blocks a synchronous caller until the answer (rethrowing a declared exception as itself) or
 * hands back the future of an asynchronous method, and adds the call's credentials before the
 * interceptors run. The method model is {@link ClientMethod} (every interface method is parsed
 * once, when the proxy is made); the cluster strategy chooses providers and sends through each
 * method's {@link Attempts}. {@code Object} methods are answered locally and default
 * methods run locally.
 */
final class ClientProxy implements InvocationHandler {
    private final Class<?> iface;
    private final ServiceKey key;
    private final Map<Method, ClientMethod> methods;
    private final Providers providers;
    /** Credentials, interceptors and the cluster strategy, joined once. */
    private final CallPath path;

    ClientProxy(
            Class<?> iface,
            Providers providers,
            ClassAllowList allowList,
            Duration timeout,
            Map<String, Duration> methodTimeouts,
            ClientConfig config,
            Cluster cluster) {
        this.iface = iface;
        this.key = providers.key();
        this.providers = providers;
        this.methods = ClientMethod.modelOf(iface, key, timeout, methodTimeouts, allowList);
        Map<MethodDescriptor, Attempts> byMethod = new IdentityHashMap<>();
        methods.values().forEach(cm -> byMethod.put(cm.descriptor(), cm.attemptsOf(providers)));
        // Each method's attempts, which carry its model; found once per call, by the descriptor's identity.
        this.path = new CallPath(iface.getName(), config, cluster, byMethod::get);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        ClientMethod m = methods.get(method);
        if (m == null) {
            return invokeLocally(proxy, method, args);
        }
        MethodDescriptor d = m.descriptor();
        if (d.reactiveStream()) {
            args[d.streamParameter()] = ReactorTypes.toFlow(args[d.streamParameter()]);
        }
        if (d.shape().providerStreams()) {
            // Cold: each subscriber makes its own call, when it subscribes.
            StreamPublisher stream = new StreamPublisher(
                    path::call, m, key, args, providers.serializer().name());
            return d.reactiveResult() ? ReactorTypes.toFlux(stream) : stream;
        }
        if (d.reactiveResult()) {
            // Cold, as a Mono is: the call is made when it is subscribed, once per subscriber.
            return ReactorTypes.toMono(() -> asyncCall(m, args));
        }
        if (d.isAsync()) {
            return asyncCall(m, args);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis());
        Invocation inv = new Invocation(key, d, args, null, null, deadline);
        Invocations.serializer(inv, providers.serializer().name());
        if (providers.onTransportThread()) {
            throw new IllegalStateException("synchronous call " + d + " made on an XRpc event-loop thread"
                    + " would block the loop that must read its response; call it from another thread or use a"
                    + " method returning CompletableFuture");
        }
        return CallPath.await(path.call(m, inv), m, deadline);
    }

    /** Makes the call of a method that answers with a future. */
    private CompletableFuture<Object> asyncCall(ClientMethod m, Object[] args) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(m.timeoutMillis());
        Invocation inv = new Invocation(key, m.descriptor(), args, null, null, deadline);
        Invocations.serializer(inv, providers.serializer().name());
        CompletableFuture<Object> f = path.call(m, inv);
        return m.target().declaredExceptions() == null ? f : CallPath.declaredAsItself(f);
    }

    private Object invokeLocally(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "XRpcProxy[" + key + " -> " + providers + "]";
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
