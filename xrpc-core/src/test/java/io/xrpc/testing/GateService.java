package io.xrpc.testing;

import io.xrpc.common.Idempotent;
import java.util.concurrent.CompletableFuture;

/** Calls that block on the server until the test opens the gate. */
public interface GateService {
    /** Blocks until the gate opens (at most 30 s), then returns {@code tag}. */
    String pass(String tag);

    CompletableFuture<String> passAsync(String tag);

    /** Like {@link #pass} but safe to run twice, so failover may retry it after a timeout. */
    @Idempotent
    String passIdempotent(String tag);

    /** Works (sleeps) for {@code millis}, then names the provider that ran it; safe to run twice. */
    @Idempotent
    String work(int millis);

    /**
     * Works {@code millis} holding one of the provider's four "database connections", waiting for
     * one when all are taken: a method whose latency rises with its concurrency beyond four.
     */
    @Idempotent
    CompletableFuture<String> pooled(int millis);

    /** Returns a tag naming the provider that ran it. */
    String whoAmI();

    /**
     * Works (sleeps) {@code millis} and names the provider, like {@link #work} but not idempotent:
     * a write, which failover may not send twice.
     */
    String put(int millis);

    /** Declared by {@link #checked}: the method's own answer, not a failure of the provider. */
    class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }

    /** Names the provider, or throws the declared {@link Refused} where the provider fails fast. */
    @Idempotent
    String checked(int millis) throws Refused;

    String quick(String s);

    /** Takes any object: what the allow-list must guard. */
    String describe(Object value);

    /** How many times calls tagged {@code tag} ran here ({@code whoAmI} counts as "whoAmI"). */
    int runs(String tag);
}
