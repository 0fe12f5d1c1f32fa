package io.xrpc.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The clock of a chaos test that counts what happens per 100 ms window from its start (at most
 * a minute of them), runs its scenario for so many windows, and prints and judges it window by window.
 */
public final class Windows {
    /** The length of a window. */
    public static final long MILLIS = 100;
    /** Windows counted at most; later events count in the last. */
    public static final int MAX = 600;

    private final long t0 = System.nanoTime();

    /** The window now. */
    public int now() {
        return (int) Math.min(MAX - 1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) / MILLIS);
    }

    /** A counter per window. */
    public static AtomicIntegerArray counts() {
        return new AtomicIntegerArray(MAX);
    }

    /** Waits until {@code millis} more have passed in window time, or {@code stopped}: the scenario's length. */
    public void runFor(long millis, BooleanSupplier stopped) {
        int until = now() + (int) (millis / MILLIS);
        await().atMost(Duration.ofMillis(millis + 30_000))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> now() >= until || stopped.getAsBoolean());
    }

    public static int sum(AtomicIntegerArray a, int from, int to) {
        return IntStream.range(from, to).map(a::get).sum();
    }

    /** The counts of windows {@code from} to {@code to}, space-separated, as the tests print them. */
    public static String line(AtomicIntegerArray a, int from, int to) {
        return IntStream.range(from, to)
                .mapToObj(i -> Integer.toString(a.get(i)))
                .collect(Collectors.joining(" "));
    }
}
