package io.xrpc.spring.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;

/** The key values both default conventions share; see docs/OBSERVABILITY.md. */
final class CallKeyValues {
    static final String SERVICE = "service";
    static final String METHOD = "method";
    static final String STATUS = "status";
    static final String SERIALIZER = "serializer";
    static final String PEER = "peer";
    static final String REQUEST_SIZE = "request.size";
    private static final String UNKNOWN = "UNKNOWN";

    private CallKeyValues() {
    }

    static KeyValues low(Invocation inv, RpcStatus status) {
        String serializer = inv.serializer();
        return KeyValues.of(KeyValue.of(SERVICE, inv.serviceKey().toString()),
                KeyValue.of(METHOD, inv.method().signature()),
                KeyValue.of(STATUS, status == null ? UNKNOWN : status.name()),
                KeyValue.of(SERIALIZER, serializer == null ? UNKNOWN : serializer));
    }

    static KeyValues high(Invocation inv) {
        Endpoint peer = inv.remote();
        int bytes = inv.requestBytes();
        return KeyValues.of(KeyValue.of(PEER, peer == null ? UNKNOWN : peer.toString()),
                KeyValue.of(REQUEST_SIZE, bytes < 0 ? UNKNOWN : Integer.toString(bytes)));
    }

    /** The span name: the interface and the method name, as gRPC names its spans ({@code pkg.Service/Method}). */
    static String contextualName(Invocation inv) {
        return inv.serviceKey().interfaceName() + "/" + inv.method().name();
    }
}
