package io.xrpc.spring.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The key values both default conventions share; see docs/OBSERVABILITY.md. Micrometer asks for
 * them at the start and at the end of every call, so the low-cardinality ones and the span name are
 * built once per service, method, serializer and status and then shared: a call builds no strings
 * for them. The cache holds one entry per exported or referenced method (and serializer), which
 * the application's interfaces bound; the values come from the server's routes and serializer
 * registry, never from what a caller sent.
 */
final class CallKeyValues {
    static final String SERVICE = "service";
    static final String METHOD = "method";
    static final String STATUS = "status";
    static final String SERIALIZER = "serializer";
    static final String PEER = "peer";
    static final String REQUEST_SIZE = "request.size";
    private static final String UNKNOWN = "UNKNOWN";
    private static final KeyValues UNKNOWN_HIGH =
            KeyValues.of(KeyValue.of(PEER, UNKNOWN), KeyValue.of(REQUEST_SIZE, UNKNOWN));
    private static final RpcStatus[] STATUSES = RpcStatus.values();

    private static final Map<ServiceKey, Map<String, Method>> METHODS = new ConcurrentHashMap<>();

    private CallKeyValues() {}

    /** One method's shared values: its span name and, per serializer, its key values by status. */
    private static final class Method {
        final String contextualName;
        final KeyValue service;
        final KeyValue method;
        /** Index {@code STATUSES.length} is "no status yet", as at the start of a call. */
        final Map<String, KeyValues[]> bySerializer = new ConcurrentHashMap<>(4);

        Method(Invocation inv) {
            this.contextualName =
                    inv.serviceKey().interfaceName() + "/" + inv.method().name();
            this.service = KeyValue.of(SERVICE, inv.serviceKey().toString());
            this.method = KeyValue.of(METHOD, inv.method().signature());
        }

        KeyValues low(String serializer, RpcStatus status) {
            KeyValues[] byStatus = bySerializer.computeIfAbsent(serializer, s -> new KeyValues[STATUSES.length + 1]);
            int i = status == null ? STATUSES.length : status.ordinal();
            KeyValues kv = byStatus[i];
            if (kv == null) {
                // A race builds equal values twice; either may stay.
                kv = KeyValues.of(
                        service,
                        method,
                        KeyValue.of(STATUS, status == null ? UNKNOWN : status.name()),
                        KeyValue.of(SERIALIZER, serializer));
                byStatus[i] = kv;
            }
            return kv;
        }
    }

    private static Method of(Invocation inv) {
        Map<String, Method> methods = METHODS.computeIfAbsent(inv.serviceKey(), k -> new ConcurrentHashMap<>());
        Method m = methods.get(inv.method().signature());
        return m != null ? m : methods.computeIfAbsent(inv.method().signature(), s -> new Method(inv));
    }

    static KeyValues low(Invocation inv, RpcStatus status) {
        String serializer = inv.serializer();
        return of(inv).low(serializer == null ? UNKNOWN : serializer, status);
    }

    static KeyValues high(Invocation inv) {
        Endpoint peer = inv.remote();
        int bytes = inv.requestBytes();
        if (peer == null && bytes < 0) {
            return UNKNOWN_HIGH; // a client call as it starts
        }
        return KeyValues.of(
                KeyValue.of(PEER, peer == null ? UNKNOWN : peer.toString()),
                KeyValue.of(REQUEST_SIZE, bytes < 0 ? UNKNOWN : Integer.toString(bytes)));
    }

    /** The span name: the interface and the method name, as gRPC names its spans ({@code pkg.Service/Method}). */
    static String contextualName(Invocation inv) {
        return of(inv).contextualName;
    }
}
