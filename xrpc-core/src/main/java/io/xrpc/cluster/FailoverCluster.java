package io.xrpc.cluster;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import io.xrpc.internal.Invocations;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code failover}: when an attempt fails in a way that proves the request did not run (connection
 * refused or closed before sending, server busy or shutting down), try another provider, up to
 * {@link Attempts#retries()} more times, while the call's deadline lasts: it holds across all the
 * attempts (as gRPC's does), each of which may be bounded sooner
 * ({@link io.xrpc.config.ReferenceOptions#attemptTimeout()}; not for a hedged call, whose hedging
 * delay plays that part and whose attempts all share the call's deadline). A timeout or a connection lost mid-call is retried only
 * for {@link io.xrpc.common.Idempotent} methods. Each retry goes to a provider not yet tried; when
 * none is left the last error stands, so a failing provider is never hammered in a loop. Every
 * retry spends a token of the reference's {@link RetryBudget}; with the budget spent, the call
 * fails with its own error.
 *
 * <p>An idempotent method the reference hedges ({@link io.xrpc.config.Hedging}) is sent again to
 * another provider when it has had no answer after the hedging delay, and at once when an attempt
 * fails in a way that may be retried, up to the hedging's attempts in all: the first answer wins
 * and the attempts still waiting are cancelled.
 */
public final class FailoverCluster implements Cluster {
    /** The least of the call's deadline left for a retry to be sent. */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    @Override
    public String name() {
        return "failover";
    }

    @Override
    public CompletableFuture<Object> invoke(Invocation invocation, Attempts attempts) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        attempts.counters().call();
        long hedgeDelay = attempts.hedgeDelayNanos(invocation);
        if (hedgeDelay >= 0) {
            new Hedged(invocation, attempts, hedgeDelay, result).start();
            return result;
        }
        // The call's deadline holds across every attempt; an attempt may be bounded sooner.
        long deadline = invocation.deadlineNanos();
        long first = attempts.attemptDeadline(deadline);
        Invocation inv = first == deadline ? invocation : attempts.nextAttempt(invocation, first);
        // No set of tried providers until a retry needs one: the common call succeeds first time.
        attempt(invocation, inv, deadline, attempts, Set.of(), 0, null, result);
        return result;
    }

    /**
     * Never throws and always completes {@code result} in the end, whatever a balancer or send
     * throws. A retry ({@code n > 0}) spends a token only once a provider to send it to was found,
     * and is made only while the call's {@code deadline} leaves time for it.
     */
    private void attempt(
            Invocation call,
            Invocation inv,
            long deadline,
            Attempts attempts,
            Set<Endpoint> tried,
            int n,
            RpcException last,
            CompletableFuture<Object> result) {
        try {
            ServiceInstance target;
            try {
                target = attempts.select(inv, tried);
            } catch (RpcException e) {
                result.completeExceptionally(last != null ? last : e);
                return;
            }
            if (n > 0) {
                if (!attempts.budget().trySpend()) {
                    attempts.counters().throttled();
                    result.completeExceptionally(notRetried(last, attempts));
                    return;
                }
                attempts.counters().retry();
            }
            CompletableFuture<Object> sent = attempts.send(inv, target);
            if (inv != call && n == 0) {
                // A bounded first attempt is a copy: what the caller's interceptors see is the first attempt's.
                attempts.reportAttempt(call, inv);
            }
            sent.whenComplete((v, t) -> {
                try {
                    if (t == null) {
                        attempts.budget().answered();
                        result.complete(v);
                        return;
                    }
                    RpcException e = asRpc(t);
                    if (e.status() == RpcStatus.APPLICATION_ERROR) {
                        attempts.budget().answered();
                    }
                    if (result.isDone()) {
                        return; // the caller gave up (cancelled): no further attempt
                    }
                    // A retry needs time to be worth sending (a wire budget is at least 1 ms).
                    if (n < attempts.retries()
                            && retryable(e, inv, attempts)
                            && deadline - System.nanoTime() > MIN_RETRY_NANOS) {
                        Set<Endpoint> next = tried.isEmpty() ? new HashSet<>(4) : tried;
                        next.add(target.endpoint());
                        attempt(
                                call,
                                attempts.nextAttempt(inv, attempts.attemptDeadline(deadline)),
                                deadline,
                                attempts,
                                next,
                                n + 1,
                                e,
                                result);
                    } else {
                        result.completeExceptionally(e);
                    }
                } catch (Throwable unexpected) {
                    result.completeExceptionally(asRpc(unexpected));
                }
            });
        } catch (Throwable unexpected) {
            result.completeExceptionally(asRpc(unexpected));
        }
    }

    private static RpcException notRetried(RpcException e, Attempts attempts) {
        return new RpcException(
                e.status(),
                e.getMessage() + "; not retried: the reference's retry budget is spent" + " (" + attempts.budget()
                        + "), as too many of its recent attempts failed",
                e);
    }

    private static boolean retryable(RpcException e, Invocation inv, Attempts attempts) {
        if (inv.method().isStream() && Invocations.isStreamAccepted(inv)) {
            return false; // placed: its messages may have been delivered, its upload read
        }
        if (e.isSafeToRetry()) {
            return true;
        }
        return (e.status() == RpcStatus.DEADLINE_EXCEEDED || e.status() == RpcStatus.CONNECTION_CLOSED)
                && attempts.isIdempotent(inv);
    }

    static RpcException asRpc(Throwable t) {
        Throwable c = Futures.cause(t);
        return c instanceof RpcException r ? r : new RpcException(RpcStatus.INTERNAL, c.toString(), c);
    }

    /**
     * One hedged call: its attempts in flight, the providers tried, and the timer that sends the
     * next attempt. Its state is guarded by its own monitor, which only this call's attempts and
     * timer take, and which is never held while sending or completing a future (those may run
     * other code inline).
     */
    private static final class Hedged {
        private final Invocation inv;
        private final Attempts attempts;
        private final long delayNanos;
        private final CompletableFuture<Object> result;
        private final int maxAttempts;
        private final Set<Endpoint> tried = new HashSet<>(4);
        private final List<CompletableFuture<Object>> waiting = new ArrayList<>(2);
        private int sent;
        /** Whether the budget held back a hedge of this call already: counted once a call. */
        private boolean throttled;
        /** Attempts sent (or being sent) that have not failed. */
        private int outstanding;

        private RpcException last;
        private Future<?> timer;

        Hedged(Invocation inv, Attempts attempts, long delayNanos, CompletableFuture<Object> result) {
            this.inv = inv;
            this.attempts = attempts;
            this.delayNanos = delayNanos;
            this.result = result;
            this.maxAttempts = attempts.hedgeAttempts(inv);
        }

        void start() {
            // Whoever ends the call cancels what still waits, a caller's cancel included.
            result.whenComplete((v, t) -> cancelRest());
            send(Kind.FIRST);
        }

        private enum Kind {
            FIRST,
            HEDGE,
            RETRY
        }

        /**
         * Sends one more attempt to a provider not yet tried; a hedge or retry spends a token
         * once that provider is found. Completes the call when nothing else will answer.
         */
        private void send(Kind kind) {
            Invocation attempt = kind == Kind.FIRST ? inv : attempts.hedgeAttempt(inv);
            ServiceInstance target;
            RpcException fail = null;
            synchronized (this) {
                if (result.isDone() || sent >= maxAttempts) {
                    return;
                }
                try {
                    target = attempts.select(attempt, tried);
                } catch (RuntimeException e) {
                    target = null;
                    if (outstanding == 0) { // nothing else will answer
                        fail = last != null ? last : asRpc(e);
                    }
                }
                if (target != null && kind != Kind.FIRST) {
                    if (!attempts.budget().trySpend()) {
                        if (!throttled) {
                            throttled = true;
                            attempts.counters().throttled();
                        }
                        if (outstanding == 0) {
                            fail = notRetried(last, attempts);
                        } else if (kind == Kind.HEDGE) {
                            reschedule(); // answers refill the budget: try again after another delay
                        }
                        target = null;
                    } else if (kind == Kind.HEDGE) {
                        attempts.counters().hedge();
                    } else {
                        attempts.counters().retry();
                    }
                }
                if (target != null) {
                    tried.add(target.endpoint());
                    sent++;
                    outstanding++;
                    if (sent < maxAttempts) {
                        reschedule();
                    } else {
                        cancelTimer();
                    }
                }
            }
            if (fail != null) {
                result.completeExceptionally(fail);
                return;
            }
            if (target == null) {
                return; // the attempts in flight may still answer
            }
            CompletableFuture<Object> f;
            try {
                f = attempts.send(attempt, target);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(asRpc(e));
            }
            synchronized (this) {
                waiting.add(f);
            }
            if (result.isDone()) {
                f.cancel(false); // answered meanwhile: cancelRest may have run before f was listed
            }
            CompletableFuture<Object> self = f;
            f.whenComplete((v, t) -> ended(self, kind == Kind.HEDGE, v, t));
        }

        private void ended(CompletableFuture<Object> f, boolean hedge, Object v, Throwable t) {
            try {
                if (t == null) {
                    attempts.budget().answered();
                    if (hedge && !result.isDone()) {
                        attempts.counters().hedgeWon(); // before the caller wakes; a rare race may count two
                    }
                    result.complete(v);
                    return;
                }
                RpcException e = asRpc(t);
                if (result.isDone()) {
                    return; // cancelled because another attempt answered, or the caller gave up
                }
                if (e.status() == RpcStatus.APPLICATION_ERROR || !retryable(e, inv, attempts)) {
                    if (e.status() == RpcStatus.APPLICATION_ERROR) {
                        attempts.budget().answered();
                    }
                    result.completeExceptionally(e); // an answer, or a failure no other attempt would mend
                    return;
                }
                boolean retry;
                boolean lastOne;
                synchronized (this) {
                    waiting.remove(f);
                    outstanding--;
                    last = e;
                    // Hedged attempts share the call's deadline: once it passed, another is pointless.
                    retry = sent < maxAttempts && inv.deadlineNanos() - System.nanoTime() > 0;
                    lastOne = outstanding == 0;
                }
                if (retry) {
                    send(Kind.RETRY);
                } else if (lastOne) {
                    result.completeExceptionally(e);
                }
            } catch (Throwable unexpected) {
                result.completeExceptionally(asRpc(unexpected));
            }
        }

        /** The next hedge after another delay, while the call's deadline allows; under the monitor. */
        private void reschedule() {
            cancelTimer();
            if (inv.deadlineNanos() - System.nanoTime() <= delayNanos) {
                return;
            }
            try {
                timer = attempts.schedule(() -> send(Kind.HEDGE), delayNanos);
            } catch (RejectedExecutionException closing) {
                // the client is closing: the attempts sent end with it
            }
        }

        /** Under the monitor. */
        private void cancelTimer() {
            Future<?> tm = timer;
            if (tm != null) {
                tm.cancel(false);
                timer = null;
            }
        }

        private void cancelRest() {
            List<CompletableFuture<Object>> rest;
            synchronized (this) {
                cancelTimer();
                rest = new ArrayList<>(waiting);
                waiting.clear();
            }
            for (CompletableFuture<Object> f : rest) {
                f.cancel(false); // ends the attempt here, and a CANCEL tells its provider (unless turned off)
            }
        }
    }
}
