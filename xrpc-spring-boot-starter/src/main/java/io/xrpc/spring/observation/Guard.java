package io.xrpc.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.xrpc.common.Invocation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps the client and server interceptors share, each guarded against a handler or
 * convention that throws: the call goes on (or keeps its result), the observation is still stopped
 * where it was started, no scope is left behind on the thread, and the first such failure of each
 * interceptor is logged.
 */
final class Guard {
    private static final Logger log = LoggerFactory.getLogger(Guard.class);
    private final AtomicBoolean logged = new AtomicBoolean();
    private final String side;

    Guard(String side) {
        this.side = side;
    }

    void failed(String step, Throwable e) {
        if (!logged.get() && logged.compareAndSet(false, true)) {
            log.warn(
                    "Observing an XRpc {} call failed in {}; calls go on, their observation may be incomplete"
                            + " (logged once)",
                    side,
                    step,
                    e);
        }
    }

    /** Starts an observation, or returns {@code null} when a handler threw: the call goes on unobserved. */
    <C extends Observation.Context> Observation start(
            ObservationConvention<C> own, ObservationConvention<C> dflt, C context, ObservationRegistry registry) {
        try {
            return Observation.createNotStarted(own, dflt, () -> context, registry)
                    .start();
        } catch (RuntimeException | LinkageError e) {
            failed("start", e);
            return null;
        }
    }

    /**
     * Runs the rest of the chain with the observation's scope open, so that what it logs and the
     * trace context it sends belong to this call; never throws.
     */
    CompletableFuture<Object> inScope(
            Observation observation,
            ObservationRegistry registry,
            Invocation invocation,
            Function<Invocation, CompletableFuture<Object>> next) {
        Observation.Scope scope = open(observation, registry);
        try {
            return next.apply(invocation);
        } catch (Throwable e) { // an interceptor after this one threw (sneakily, perhaps, a checked one)
            return CompletableFuture.failedFuture(e);
        } finally {
            close(scope);
        }
    }

    /** Opens the observation's scope, or returns {@code null}, leaving no half-opened scope current. */
    private Observation.Scope open(Observation observation, ObservationRegistry registry) {
        try {
            return observation.openScope();
        } catch (RuntimeException | LinkageError e) {
            failed("opening its scope", e);
            // The scope makes itself current before telling the handlers; one that threw there
            // must not stay current, or every later observation on this thread gets it as parent.
            try {
                Observation.Scope stale = registry.getCurrentObservationScope();
                if (stale != null && stale.getCurrentObservation() == observation) {
                    stale.close();
                }
            } catch (RuntimeException | LinkageError again) {
                failed("closing a half-opened scope", again);
            }
            return null;
        }
    }

    private void close(Observation.Scope scope) {
        if (scope != null) {
            try {
                scope.close();
            } catch (RuntimeException | LinkageError e) {
                failed("closing its scope", e);
            }
        }
    }

    /** Records {@code failure} (if any) and stops: stop runs even when recording the error threw. */
    void end(Observation observation, Throwable failure) {
        try {
            if (failure != null) {
                observation.error(failure);
            }
        } catch (RuntimeException | LinkageError e) {
            failed("recording its error", e);
        } finally {
            try {
                observation.stop();
            } catch (RuntimeException | LinkageError e) {
                failed("stop", e);
            }
        }
    }
}
