package io.xrpc.testing;

import static org.awaitility.Awaitility.await;

import io.xrpc.common.RpcException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Threads calling a service in a loop until stopped, counting answers by what they returned and
 * failures by status and message. For failover tests: start it, disturb the providers, wait for
 * more answers, stop, and assert no failures.
 */
public final class CallLoad implements AutoCloseable {
    private final Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
    private final Loops loops;

    public CallLoad(int threads, Supplier<String> call) {
        loops = new Loops(threads, i -> () -> {
            try {
                answers.computeIfAbsent(call.get(), k -> new AtomicInteger()).incrementAndGet();
            } catch (RpcException e) {
                errors.computeIfAbsent(e.status() + ": " + e.getMessage(), k -> new AtomicInteger())
                        .incrementAndGet();
            }
        });
    }

    /** Answers that returned {@code value}. */
    public int answered(String value) {
        AtomicInteger n = answers.get(value);
        return n == null ? 0 : n.get();
    }

    public int answeredInAll() {
        return answers.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Waits (bounded) until {@code value} has been answered {@code more} more times than now. */
    public void awaitMore(String value, int more, Duration atMost) {
        int target = answered(value) + more;
        await().atMost(atMost).until(() -> answered(value) >= target);
    }

    /** Failures so far, by status and message. */
    public Map<String, AtomicInteger> errors() {
        return errors;
    }

    /** Stops the loops and waits for them. */
    @Override
    public void close() throws Exception {
        loops.close();
    }
}
