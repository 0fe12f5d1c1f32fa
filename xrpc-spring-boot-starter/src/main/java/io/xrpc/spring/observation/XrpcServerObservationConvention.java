package io.xrpc.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of calls a server runs. Declare a bean of this type to replace
 * {@link DefaultXrpcServerObservationConvention} (extend it to add to its tags rather than replace
 * them).
 */
public interface XrpcServerObservationConvention extends ObservationConvention<XrpcServerContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof XrpcServerContext;
    }
}
