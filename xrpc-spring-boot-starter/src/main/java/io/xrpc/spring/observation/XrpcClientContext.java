package io.xrpc.spring.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;

/**
 * What an observation of one client call sees: the call's {@link Invocation} (service, method,
 * serializer, provider once chosen, request size once encoded) and, when it has ended, its status.
 * A tracing handler writes the W3C {@code traceparent}, {@code tracestate} and {@code baggage}
 * into the invocation's attachments, which travel with the request.
 */
public class XrpcClientContext extends SenderContext<Invocation> implements XrpcCallContext {
    private final Invocation invocation;
    private volatile RpcStatus status;

    public XrpcClientContext(Invocation invocation) {
        super((carrier, key, value) -> carrier.attachments().put(key, value), Kind.CLIENT);
        this.invocation = invocation;
        setCarrier(invocation);
    }

    @Override
    public Invocation getInvocation() {
        return invocation;
    }

    @Override
    public RpcStatus getStatus() {
        return status;
    }

    void setStatus(RpcStatus status) {
        this.status = status;
    }
}
