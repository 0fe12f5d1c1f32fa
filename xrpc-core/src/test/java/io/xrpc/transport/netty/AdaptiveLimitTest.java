package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The adaptive limit fed synthetic latencies, without a server: a phase of calls one at a time
 * (the limit does not bind), then a phase that keeps every slot of the limit busy, each call
 * ending with the latency its concurrency gives.
 */
class AdaptiveLimitTest {

    private static AdaptiveLimit run(int unloadedCalls, int loadedCalls, IntToLongFunction latencyAtConcurrency) {
        AdaptiveLimit l = new AdaptiveLimit(200);
        for (int i = 0; i < unloadedCalls; i++) {
            assertThat(l.tryAcquire()).isTrue();
            l.release(latencyAtConcurrency.applyAsLong(1));
        }
        for (int i = 0; i < loadedCalls; i++) {
            while (l.tryAcquire()) {
                // fill every slot: offered load beyond the limit
            }
            l.release(latencyAtConcurrency.applyAsLong(l.inFlight()));
        }
        return l;
    }

    @Test
    void onAPoolOfFourConnectionsTheLimitSettlesNearOnePointOneTimesItPlusOne() {
        // 5 ms a call; beyond four at once, calls queue for a connection.
        AdaptiveLimit l = run(100, 5000, running -> (long) (5_000_000 * Math.max(1, running / 4.0)));
        assertThat(l.limit()).isBetween(5, 7);
    }

    @Test
    void aMethodWhoseLatencyIsSpreadButDoesNotQueueKeepsGrowing() {
        Random r = new Random(42);
        IntToLongFunction spread = running -> 20_000_000 + (long) (r.nextDouble() * 60_000_000); // 20-80 ms, any load
        // Known unloaded mean: the limit keeps well above the concurrency such a method needs (max 200).
        assertThat(run(100, 2000, spread).limit()).as("with its unloaded mean known").isGreaterThanOrEqualTo(50);
        // Overloaded from its first call, only the least latency is known: the limit falls to its floor.
        assertThat(run(0, 2000, spread).limit()).as("cold under overload").isLessThanOrEqualTo(3);
    }

    @Test
    void callsThatNeverRanAreNotSamplesAndGiveTheirSlotBack() {
        AdaptiveLimit l = new AdaptiveLimit(200);
        for (int i = 0; i < 10_000; i++) {
            assertThat(l.tryAcquire()).isTrue();
            l.release(-1);
        }
        assertThat(l.inFlight()).isZero();
        assertThat(l.limit()).isEqualTo(AdaptiveLimit.INITIAL);
    }
}
