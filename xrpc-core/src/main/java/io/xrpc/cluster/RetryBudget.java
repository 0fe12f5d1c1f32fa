package io.xrpc.cluster;

import io.xrpc.internal.Checks;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Retry throttling for one reference, as gRPC's {@code retryThrottling}: a bucket of
 * {@code maxTokens} tokens, full at first. Every retry and every hedge spends one token; every
 * answered attempt puts back {@code tokenRatio}. A retry or hedge is sent only while the bucket
 * holds more than half its tokens, so when the providers keep failing, the extra attempts fall to
 * about {@code tokenRatio} of the answered calls instead of multiplying the load on a cluster that
 * is already in trouble (a retry storm). The calls that are not retried fail with their own
 * error, which says that the budget was spent.
 *
 * <p>Lock-free: one atomic counter, in thousandths of a token. A full bucket is only read.
 */
public final class RetryBudget {
    /** No throttling: every retry and hedge the cluster would make is allowed. */
    public static final RetryBudget UNLIMITED = new RetryBudget();

    private final long max;
    private final long half;
    private final long refill;
    private final AtomicLong milliTokens;

    private RetryBudget() {
        this.max = Long.MAX_VALUE;
        this.half = -1;
        this.refill = 0;
        this.milliTokens = new AtomicLong(Long.MAX_VALUE);
    }

    /**
     * @param maxTokens  the bucket's size, 1 to 1000 (gRPC's range); retries stop below half of it
     * @param tokenRatio what an answered attempt puts back, more than 0 and at most 1
     */
    public RetryBudget(int maxTokens, double tokenRatio) {
        Checks.retryBudget(maxTokens, tokenRatio);
        this.max = maxTokens * 1000L;
        this.half = max / 2;
        this.refill = Math.max(1, Math.round(tokenRatio * 1000));
        this.milliTokens = new AtomicLong(max);
    }

    /** Takes one token for a retry or a hedge; false, taking nothing, when the bucket is at half or below. */
    public boolean trySpend() {
        if (this == UNLIMITED) {
            return true;
        }
        for (; ; ) {
            long t = milliTokens.get();
            if (t <= half) {
                return false;
            }
            if (milliTokens.compareAndSet(t, t - 1000)) {
                return true;
            }
        }
    }

    /** An attempt was answered (a value, or the application's exception): puts back its share. */
    public void answered() {
        if (this == UNLIMITED || milliTokens.get() >= max) {
            return; // the usual case: a full bucket is only read
        }
        milliTokens.getAndUpdate(t -> Math.min(max, t + refill));
    }

    /** Tokens in the bucket now ({@code Double.POSITIVE_INFINITY} when unlimited). */
    public double tokens() {
        return this == UNLIMITED ? Double.POSITIVE_INFINITY : milliTokens.get() / 1000.0;
    }

    @Override
    public String toString() {
        return this == UNLIMITED ? "unlimited" : "RetryBudget[" + tokens() + " of " + max / 1000 + " tokens]";
    }
}
