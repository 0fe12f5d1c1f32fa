package io.xrpc.internal;

import java.util.concurrent.CompletionException;

/** Helpers for the futures calls complete with. */
public final class Futures {
    private Futures() {}

    /** What failed: {@code t} without the {@link CompletionException} a dependent stage wraps it in. */
    public static Throwable cause(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
