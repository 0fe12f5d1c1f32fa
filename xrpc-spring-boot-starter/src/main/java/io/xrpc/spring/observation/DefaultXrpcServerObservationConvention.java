package io.xrpc.spring.observation;

/**
 * Calls a server runs are observed as {@code xrpc.server.calls}, a span named
 * {@code pkg.Service/method}, timed until answered. Low-cardinality keys (also the timer's tags):
 * {@code service}, {@code method}, {@code status} (the status the caller receives, which for a
 * result that cannot be written is SERIALIZATION_ERROR though the implementation returned) and
 * {@code serializer}. High-cardinality keys (on spans only): {@code peer} (the caller's
 * {@code host:port}) and {@code request.size} (the request body's bytes as received).
 */
public class DefaultXrpcServerObservationConvention extends CallConvention<XrpcServerContext>
        implements XrpcServerObservationConvention {
    /** The observation's name, and so the timer's. */
    public static final String NAME = "xrpc.server.calls";

    public DefaultXrpcServerObservationConvention() {
        super(NAME);
    }
}
