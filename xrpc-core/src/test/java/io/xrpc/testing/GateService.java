package io.xrpc.testing;

import java.util.concurrent.CompletableFuture;

/** Calls that block on the server until the test opens the gate. */
public interface GateService {
    /** Blocks until the gate opens (at most 30 s), then returns {@code tag}. */
    String pass(String tag);

    CompletableFuture<String> passAsync(String tag);

    String quick(String s);

    /** Takes any object: what the allow-list must guard. */
    String describe(Object value);
}
