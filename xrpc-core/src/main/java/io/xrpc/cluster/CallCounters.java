package io.xrpc.cluster;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the cluster strategy did for one reference, counted since it was made: calls, retries,
 * retries the {@link RetryBudget} refused, hedges sent and hedges that answered first. Shown by
 * {@link io.xrpc.client.RpcClient#references()} and the starter's actuator endpoint; the ratio
 * of retries to calls is what a retry storm would raise.
 */
public final class CallCounters {
    private final LongAdder calls = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder throttled = new LongAdder();
    private final LongAdder hedges = new LongAdder();
    private final LongAdder hedgesWon = new LongAdder();

    void call() {
        calls.increment();
    }

    void retry() {
        retries.increment();
    }

    void throttled() {
        throttled.increment();
    }

    void hedge() {
        hedges.increment();
    }

    void hedgeWon() {
        hedgesWon.increment();
    }

    /** The counts now. */
    public Snapshot snapshot() {
        return new Snapshot(calls.sum(), retries.sum(), throttled.sum(), hedges.sum(), hedgesWon.sum());
    }

    /**
     * @param calls            calls made (first attempts)
     * @param retries          further attempts after a failure
     * @param retriesThrottled calls whose retry or hedge the retry budget held back (once a call)
     * @param hedges           hedged attempts sent while an earlier attempt was still waiting
     * @param hedgesWon        calls whose answer came from a hedged attempt
     */
    public record Snapshot(long calls, long retries, long retriesThrottled, long hedges, long hedgesWon) {}
}
