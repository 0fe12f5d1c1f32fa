package io.xrpc.spring.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The application's conventions, wrapped so that one that throws falls back to the default's
 * values: Micrometer asks a convention for its key values before telling the handlers that an
 * observation stopped, so a throwing convention would otherwise leave every handler's state
 * (a span, an active-calls entry) behind for good.
 */
final class SafeConventions {
    private SafeConventions() {}

    private abstract static class Safe<C extends Observation.Context> implements ObservationConvention<C> {
        private final ObservationConvention<C> own;
        private final ObservationConvention<C> fallback;
        private final Guard guard;

        Safe(ObservationConvention<C> own, ObservationConvention<C> fallback, Guard guard) {
            this.own = own;
            this.fallback = fallback;
            this.guard = guard;
        }

        @Override
        public String getName() {
            try {
                return own.getName();
            } catch (RuntimeException e) {
                guard.failed("the application's convention", e);
                return fallback.getName();
            }
        }

        @Override
        public String getContextualName(C context) {
            try {
                return own.getContextualName(context);
            } catch (RuntimeException e) {
                guard.failed("the application's convention", e);
                return fallback.getContextualName(context);
            }
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(C context) {
            try {
                return own.getLowCardinalityKeyValues(context);
            } catch (RuntimeException e) {
                guard.failed("the application's convention", e);
                return fallback.getLowCardinalityKeyValues(context);
            }
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(C context) {
            try {
                return own.getHighCardinalityKeyValues(context);
            } catch (RuntimeException e) {
                guard.failed("the application's convention", e);
                return fallback.getHighCardinalityKeyValues(context);
            }
        }
    }

    static final class Client extends Safe<XrpcClientContext> implements XrpcClientObservationConvention {
        Client(XrpcClientObservationConvention own, XrpcClientObservationConvention fallback, Guard guard) {
            super(own, fallback, guard);
        }
    }

    static final class Server extends Safe<XrpcServerContext> implements XrpcServerObservationConvention {
        Server(XrpcServerObservationConvention own, XrpcServerObservationConvention fallback, Guard guard) {
            super(own, fallback, guard);
        }
    }
}
