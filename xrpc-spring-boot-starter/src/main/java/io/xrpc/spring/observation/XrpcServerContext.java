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
 * {@code baggage} from the invocation's attachments, so the server's span is the client span's child;
 * a field longer than its W3C limit is ignored ({@link #read}).
 */
public class XrpcServerContext extends ReceiverContext<Invocation> implements XrpcCallContext {
    private final Invocation invocation;
    private volatile RpcStatus status;

    public XrpcServerContext(Invocation invocation) {
        super(XrpcServerContext::read, Kind.SERVER);
        this.invocation = invocation;
        setCarrier(invocation);
    }

    /**
     * An incoming trace field, or {@code null} (as if absent) when longer than its limit: the
     * caller is not trusted to make this provider carry unbounded baggage into every call it makes
     * downstream. The limits are the W3C ones: 8192 for {@code baggage}, 512 for
     * {@code tracestate}; {@code traceparent} is 55 today (128 allowed for later versions); any
     * other field (a B3 header, a remote baggage field) 1024.
     */
    static String read(Invocation carrier, String key) {
        Map<String, String> a = carrier.attachmentsOrNull();
        String value = a == null ? null : a.get(key);
        return value == null || value.length() <= limit(key) ? value : null;
    }

    static int limit(String key) {
        switch (key) {
            case "baggage":
                return 8192;
            case "tracestate":
                return 512;
            case "traceparent":
                return 128;
            default:
                return 1024;
        }
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
