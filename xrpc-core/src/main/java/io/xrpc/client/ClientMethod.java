package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Providers;
import io.xrpc.common.Idempotent;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.transport.CallTarget;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** One method of a reference, resolved once: its model, routing, timeout and whether it may be retried. */
record ClientMethod(MethodDescriptor descriptor, CallTarget target, long timeoutMillis, boolean idempotent) {

    /** This method's attempts among the reference's {@code providers}. */
    Attempts attemptsOf(Providers providers) {
        return providers.attempts(descriptor.name(), target, timeoutMillis, idempotent, descriptor.isStream());
    }

    /** The remote methods of {@code iface} (default and static ones run locally). */
    static Map<Method, ClientMethod> modelOf(
            Class<?> iface,
            ServiceKey key,
            Duration timeout,
            Map<String, Duration> methodTimeouts,
            ClassAllowList allowList) {
        Map<Method, ClientMethod> m = new HashMap<>();
        String serviceKey = key.toString();
        for (Method method : iface.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault()) {
                continue;
            }
            MethodDescriptor d = MethodDescriptor.of(method);
            Duration t = methodTimeouts.getOrDefault(method.getName(), timeout);
            Class<?>[] declared = d.exceptionTypes();
            CallTarget.ExceptionRebuilder rebuild = declared.length == 0
                    ? null
                    : (carried, serializer, deadline) -> RemoteExceptions.rebuild(
                            carried, declared, allowList::isAllowed, iface.getClassLoader(), serializer, deadline);
            m.put(
                    method,
                    new ClientMethod(
                            d,
                            CallTarget.of(serviceKey, d.signature(), d.resultType(), d.genericResultType(), rebuild),
                            t.toMillis(),
                            method.isAnnotationPresent(Idempotent.class)));
        }
        return Map.copyOf(m);
    }
}
