package io.xrpc.spring.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcStatus;
import java.util.Map;

/**
 * What an observation of one call a server runs sees: the call's {@link Invocation} (service,
 * method, serializer, the caller's address, request size) and, once answered, the status the caller
 * receives. A tracing handler reads the caller's {@code traceparent}, {@code tracestate} and
 * {@code baggage} from the invocation's attachments, so the server's span is the client span's child.
 */
public class XrpcServerContext extends ReceiverContext<Invocation> {
    private final Invocation invocation;
    private volatile RpcStatus status;

    public XrpcServerContext(Invocation invocation) {
        super((carrier, key) -> {
            Map<String, String> a = carrier.attachmentsOrNull();
            return a == null ? null : a.get(key);
        }, Kind.SERVER);
        this.invocation = invocation;
        setCarrier(invocation);
    }

    /** The call being run. */
    public Invocation getInvocation() {
        return invocation;
    }

    /** The status the caller receives: {@code null} until answered. */
    public RpcStatus getStatus() {
        return status;
    }

    void setStatus(RpcStatus status) {
        this.status = status;
    }
}
