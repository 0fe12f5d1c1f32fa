package io.xrpc.server;

import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.NonBlocking;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ServiceOptions;
import io.xrpc.internal.InterceptorChain;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.transport.Routes;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The table of the services a server exports: each method as a {@link ServerMethod}, which runs a
 * call through the server interceptors to the implementation. Lookups are two hash probes;
 * exporting may happen while the server runs. The transport finds each request's route here
 * ({@link Routes}) and hands it to the {@link CallPolicy}.
 */
final class ServiceDispatcher implements Routes {
    private final Map<String, Exported> services = new ConcurrentHashMap<>();

    /**
     * One exported service: its methods by signature, and its calls running now. {@code listed} is
     * false for the server's own services (reflection), which answer calls but are not shown among
     * the application's.
     */
    record Exported(
            ServiceKey key,
            Class<?> type,
            Map<String, ServerMethod> methods,
            Set<String> accepted,
            LongAdder running,
            boolean listed) {}

    private final InterceptorChain<ServerInterceptor, ServerInterceptor.Chain> chain;
    private final ClassAllowList allowList;

    ServiceDispatcher(List<ServerInterceptor> interceptors, ClassAllowList allowList) {
        this.chain = new InterceptorChain<>(interceptors, ServerInterceptor::intercept, next -> next::apply, "server");
        this.allowList = allowList;
    }

    <T> ServiceKey export(Class<T> iface, T implementation, ServiceOptions options) {
        return export(iface, implementation, options, true);
    }

    /** As {@link #export(Class, Object, ServiceOptions)}; {@code listed} false for the server's own services. */
    <T> ServiceKey export(Class<T> iface, T implementation, ServiceOptions options, boolean listed) {
        if (!iface.isInterface()) {
            throw new IllegalArgumentException("service type: " + iface.getName() + " (expected: an interface)");
        }
        if (!iface.isInstance(implementation)) {
            throw new IllegalArgumentException(
                    "implementation: " + implementation.getClass().getName() + " (expected: an implementation of "
                            + iface.getName() + ")");
        }
        ServiceKey key = ServiceKey.of(iface, options.version(), options.group());
        Set<String> accepted = Set.copyOf(options.serializers());
        Map<String, ServerMethod> methods = new HashMap<>();
        LongAdder running = new LongAdder();
        for (Method m : iface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            MethodDescriptor d = MethodDescriptor.of(m);
            boolean direct = options.nonBlocking()
                    || iface.isAnnotationPresent(NonBlocking.class)
                    || m.isAnnotationPresent(NonBlocking.class);
            methods.put(d.signature(), new ServerMethod(key, d, implementation, accepted, direct, chain, running));
        }
        allowList.allowTypesOf(iface);
        if (services.putIfAbsent(
                        key.toString(), new Exported(key, iface, Map.copyOf(methods), accepted, running, listed))
                != null) {
            throw new IllegalStateException("service " + key + " is already exported");
        }
        return key;
    }

    boolean unexport(ServiceKey key) {
        return services.remove(key.toString()) != null;
    }

    @Override
    public boolean hasService(String serviceKey) {
        return services.containsKey(serviceKey);
    }

    /** The keys (at most ten) that the interface named in {@code serviceKey} ([group/]name[:version]) is exported under. */
    @Override
    public List<String> exportedAs(String serviceKey) {
        String name = serviceKey.substring(serviceKey.indexOf('/') + 1);
        int colon = name.indexOf(':');
        String iface = colon < 0 ? name : name.substring(0, colon);
        List<String> keys = new ArrayList<>();
        for (Exported e : exports()) {
            if (e.key().interfaceName().equals(iface) && keys.size() < 10) {
                keys.add(e.key().toString());
            }
        }
        return keys;
    }

    @Override
    public ServerMethod find(String serviceKey, String signature) {
        Exported s = services.get(serviceKey);
        return s == null ? null : s.methods().get(signature);
    }

    @Override
    public List<Route> named(String serviceKey, String name) {
        Exported s = services.get(serviceKey);
        if (s == null) {
            return List.of();
        }
        List<Route> found = new ArrayList<>(1);
        for (ServerMethod m : s.methods().values()) {
            if (m.descriptor().name().equals(name)) {
                found.add(m);
            }
        }
        return found;
    }

    /** The application's services exported now ({@code listed}), sorted by key. */
    List<Exported> exports() {
        List<Exported> all = new ArrayList<>(services.size());
        for (Exported e : services.values()) {
            if (e.listed()) {
                all.add(e);
            }
        }
        all.sort(Comparator.comparing(e -> e.key().toString()));
        return all;
    }

    /** The services exported now, as {@link RpcServer#services()} reports them. */
    List<ExportedService> describe() {
        List<ExportedService> all = new ArrayList<>(services.size());
        for (Exported s : exports()) {
            List<String> methods = new ArrayList<>(s.methods().keySet());
            Collections.sort(methods);
            List<String> nonBlocking = new ArrayList<>();
            for (ServerMethod m : s.methods().values()) {
                if (m.direct()) {
                    nonBlocking.add(m.descriptor().signature());
                }
            }
            Collections.sort(nonBlocking);
            List<String> accepted = new ArrayList<>(s.accepted());
            Collections.sort(accepted);
            all.add(new ExportedService(
                    s.key(),
                    s.type().getName(),
                    List.copyOf(methods),
                    List.copyOf(nonBlocking),
                    List.copyOf(accepted),
                    s.running().sum()));
        }
        return all;
    }
}
