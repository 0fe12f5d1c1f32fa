package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
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
            assertThat(l.tryAcquire()).isEqualTo(1);
            l.release(latencyAtConcurrency.applyAsLong(1), true);
        }
        for (int i = 0; i < loadedCalls; i++) {
            while (l.tryAcquire() > 0) {
                // fill every slot: offered load beyond the limit
            }
            l.release(latencyAtConcurrency.applyAsLong(l.inFlight()), false);
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
    void aMethodWhoseLatencyIsSpreadButDoesNotQueueStaysOffItsFloor() {
        int[] limits = new int[40];
        for (int seed = 0; seed < limits.length; seed++) {
            Random r = new Random(seed);
            // 20-80 ms whatever the load
            IntToLongFunction spread = running -> 20_000_000 + (long) (r.nextDouble() * 60_000_000);
            limits[seed] = run(200, 2000, spread).limit();
            // Overloaded from its first call, only the least latency is known: the limit falls to its floor.
            assertThat(run(0, 2000, spread).limit())
                    .as("cold under overload, seed %d", seed)
                    .isLessThanOrEqualTo(3);
        }
        Arrays.sort(limits);
        System.out.println(
                "limits of a spread method after its unloaded mean, 40 random sequences: " + Arrays.toString(limits));
        assertThat(limits[0]).as("the lowest of 40").isGreaterThanOrEqualTo(MIN_SPREAD);
        assertThat(limits[20]).as("the median").isGreaterThanOrEqualTo(100);
    }

    /** Set from the runs: see the printed limits. */
    private static final int MIN_SPREAD = 100;

    @Test
    void callsThatNeverRanAreNotSamplesAndGiveTheirSlotBack() {
        AdaptiveLimit l = new AdaptiveLimit(200);
        for (int i = 0; i < 10_000; i++) {
            assertThat(l.tryAcquire()).isEqualTo(1);
            l.release(-1, true);
        }
        assertThat(l.inFlight()).isZero();
        assertThat(l.limit()).isEqualTo(AdaptiveLimit.INITIAL);
    }
}
