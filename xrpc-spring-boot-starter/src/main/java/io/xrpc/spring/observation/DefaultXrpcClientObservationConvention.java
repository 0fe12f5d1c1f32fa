package io.xrpc.spring.observation;

/**
 * Client calls are observed as {@code xrpc.client.calls}, a span named {@code pkg.Service/method}.
 * Low-cardinality keys (also the timer's tags): {@code service} (the service key),
 * {@code method} (its signature), {@code status} (an {@link io.xrpc.common.RpcStatus} name) and
 * {@code serializer}. High-cardinality keys (on spans only): {@code peer} (the provider's
 * {@code host:port}; with failover the first attempt's) and {@code request.size} (the request body's
 * bytes as sent).
 */
public class DefaultXrpcClientObservationConvention extends CallConvention<XrpcClientContext>
        implements XrpcClientObservationConvention {
    /** The observation's name, and so the timer's. */
    public static final String NAME = "xrpc.client.calls";

    public DefaultXrpcClientObservationConvention() {
        super(NAME);
    }
}
