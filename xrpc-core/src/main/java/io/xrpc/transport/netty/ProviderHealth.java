package io.xrpc.transport.netty;

import io.xrpc.common.Endpoint;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Outlier detection for one provider, as gRPC and Envoy do it: after a number of consecutive
 * failures that suggest the provider itself is the problem (no answer before the deadline, or the
 * connection lost or refused under calls) it is set aside for a while, the interval doubling with
 * every ejection in a row. When the interval ends it is tried again on probation: one more failure
 * sets it aside again, an answer clears its record. Callers prefer providers not set aside and fall
 * back to them when nothing else is left, so the last provider is never shut out.
 *
 * <p>An answer can be a failure too (failure accrual, as Finagle's and Envoy's consecutive 5xx):
 * {@link #FAILED_ANSWERS} answers in a row that say the provider could not serve (an exception the
 * method does not declare, {@code SERVER_BUSY}, an internal error) set it aside the same way; an
 * exception the method declares is its answer and counts as one. Before, a provider that threw at
 * once looked like the fastest to {@code p2c}, which sent it 285-297 of 300 calls.
 *
 * <p>A frozen provider (a GC pause, SIGSTOP) keeps its TCP connection and its registry node for a
 * whole session timeout; without this, every caller that picked it waited out its deadline.
 * Thread-safe; an answer costs two volatile reads.
 */
final class ProviderHealth {
    private static final Logger log = LoggerFactory.getLogger(ProviderHealth.class);

    private final Endpoint endpoint;
    private final int threshold;
    private final long baseNanos;
    private final long maxNanos;
    private final AtomicInteger consecutive = new AtomicInteger();
    /** Answers in a row that were failures of the provider's. */
    private final AtomicInteger failedAnswers = new AtomicInteger();
    /** Failed answers in a row that set a provider aside. */
    static final int FAILED_ANSWERS = 5;

    private volatile int ejections;
    private volatile long ejectedUntil;

    ProviderHealth(Endpoint endpoint, int threshold, long baseNanos, long maxNanos) {
        this.endpoint = endpoint;
        this.threshold = threshold;
        this.baseNanos = baseNanos;
        this.maxNanos = maxNanos;
    }

    /** The provider answered a call. */
    void succeeded() {
        if (consecutive.get() != 0) {
            consecutive.set(0);
        }
        if (failedAnswers.get() != 0) {
            failedAnswers.set(0);
        }
        if (ejections != 0 && !isEjected()) {
            ejections = 0; // probation passed
        }
    }

    /** A call to the provider went unanswered or lost its connection. Rare, so simply locked. */
    synchronized void failed() {
        if (threshold <= 0 || isEjected()) {
            return; // off, or calls sent before the ejection still timing out
        }
        if (consecutive.incrementAndGet() >= threshold || ejections > 0) {
            eject("after " + Math.max(consecutive.get(), 1) + " calls in a row went unanswered");
        }
    }

    /**
     * The provider answered, but with a failure of its own ({@code what}): not the method's
     * answer. Rare on a healthy provider, so simply locked.
     */
    synchronized void failedAnswer(String what) {
        if (threshold <= 0 || isEjected()) {
            return;
        }
        // On probation too it takes five: an overloaded provider shedding a call is not sent away for twice as long.
        if (failedAnswers.incrementAndGet() >= FAILED_ANSWERS) {
            eject("after " + Math.max(failedAnswers.get(), 1) + " answers in a row were failures (the last: " + what
                    + ")");
        }
    }

    /** Sets the provider aside now (it refused a connection, say). */
    synchronized void eject(String why) {
        int n = ejections + 1;
        ejections = n;
        long interval = Math.min(maxNanos, baseNanos << Math.min(n - 1, 20));
        ejectedUntil = System.nanoTime() + interval;
        consecutive.set(0);
        failedAnswers.set(0);
        log.warn(
                "Setting provider {} aside for {} ms {}; calls go to other providers while there are any",
                endpoint,
                TimeUnit.NANOSECONDS.toMillis(interval),
                why);
    }

    /** Nanoseconds the provider stays set aside from {@code now}, 0 when it is not. */
    long ejectedNanosLeft(long now) {
        long until = ejectedUntil;
        return until == 0 ? 0 : Math.max(0, until - now);
    }

    boolean isEjected() {
        long until = ejectedUntil;
        return until != 0 && until - System.nanoTime() > 0;
    }
}
