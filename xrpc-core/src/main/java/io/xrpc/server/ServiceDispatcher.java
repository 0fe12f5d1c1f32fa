package io.xrpc.server;

import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ServiceOptions;
import io.xrpc.serialize.ClassAllowList;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The services a server exports, and the path of one call through the server interceptors to
 * its implementation. Lookups are two hash probes; exporting may happen while the server runs.
 */
public final class ServiceDispatcher {
    private final Map<String, Map<String, ServerMethod>> services = new ConcurrentHashMap<>();
    private final List<ServerInterceptor> interceptors;
    private final ClassAllowList allowList;

    ServiceDispatcher(List<ServerInterceptor> interceptors, ClassAllowList allowList) {
        this.interceptors = List.copyOf(interceptors);
        this.allowList = allowList;
    }

    <T> ServiceKey export(Class<T> iface, T implementation, ServiceOptions options) {
        if (!iface.isInterface()) {
            throw new IllegalArgumentException("service type: " + iface.getName() + " (expected: an interface)");
        }
        if (!iface.isInstance(implementation)) {
            throw new IllegalArgumentException("implementation: " + implementation.getClass().getName()
                    + " (expected: an implementation of " + iface.getName() + ")");
        }
        ServiceKey key = ServiceKey.of(iface, options.version(), options.group());
        Set<String> accepted = Set.copyOf(options.serializers());
        Map<String, ServerMethod> methods = new HashMap<>();
        for (Method m : iface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            MethodDescriptor d = MethodDescriptor.of(m);
            methods.put(d.signature(), new ServerMethod(key, d, implementation, accepted));
        }
        allowList.allowTypesOf(iface);
        if (services.putIfAbsent(key.toString(), Map.copyOf(methods)) != null) {
            throw new IllegalStateException("service " + key + " is already exported");
        }
        return key;
    }

    boolean unexport(ServiceKey key) {
        return services.remove(key.toString()) != null;
    }

    /** Whether any method is exported under {@code serviceKey}. */
    public boolean hasService(String serviceKey) {
        return services.containsKey(serviceKey);
    }

    /** The method, or {@code null} when the service or the signature is unknown. */
    public ServerMethod find(String serviceKey, String signature) {
        Map<String, ServerMethod> methods = services.get(serviceKey);
        return methods == null ? null : methods.get(signature);
    }

    /**
     * About how large any method's responses are lately, for a request whose method is not yet
     * known (its head is compressed): follows the responses like each method's own estimate.
     */
    public int largestExpectedResponse() {
        return anyResponseSize.get();
    }

    /** Records the size of a response of {@code method}. */
    public void recordResponse(ServerMethod method, int bytes) {
        method.recordResponseBytes(bytes);
        anyResponseSize.record(bytes);
    }

    private final ResponseSizeEstimate anyResponseSize = new ResponseSizeEstimate();

    /** Runs a call through the interceptors; the future fails rather than this method throwing. */
    public CompletableFuture<Object> dispatch(ServerMethod method, Invocation invocation) {
        try {
            return proceed(0, method, invocation);
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    private CompletableFuture<Object> proceed(int index, ServerMethod method, Invocation invocation) {
        if (index == interceptors.size()) {
            return method.invoke(invocation.arguments());
        }
        CompletableFuture<Object> f = interceptors.get(index).intercept(invocation,
                inv -> proceed(index + 1, method, inv));
        if (f == null) {
            throw new RpcException(RpcStatus.INTERNAL, "server interceptor " + interceptors.get(index).getClass().getName()
                    + " returned null (expected: a future)");
        }
        return f;
    }
}
