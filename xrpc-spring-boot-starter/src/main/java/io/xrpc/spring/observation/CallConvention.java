package io.xrpc.spring.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** The default conventions of both sides: the same keys and span name, each under its own name. */
abstract class CallConvention<C extends Observation.Context & XrpcCallContext> implements ObservationConvention<C> {
    private final String name;

    CallConvention(String name) {
        this.name = name;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String getContextualName(C context) {
        return CallKeyValues.contextualName(context.getInvocation());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(C context) {
        return CallKeyValues.low(context.getInvocation(), context.getStatus());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(C context) {
        return CallKeyValues.high(context.getInvocation());
    }
}
