package io.xrpc.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What is written to {@code System.err} (where the tests' SLF4J simple logger writes) while it is
 * open, for tests that check a log line; closing puts the original stream back.
 */
public final class CapturedErr implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    public CapturedErr() {
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    /** Everything written so far. */
    public String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
