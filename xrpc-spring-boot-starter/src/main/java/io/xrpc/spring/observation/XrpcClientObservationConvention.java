package io.xrpc.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of client calls. Declare a bean of this type to replace
 * {@link DefaultXrpcClientObservationConvention} (extend it to add to its tags rather than replace
 * them).
 */
public interface XrpcClientObservationConvention extends ObservationConvention<XrpcClientContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof XrpcClientContext;
    }
}
