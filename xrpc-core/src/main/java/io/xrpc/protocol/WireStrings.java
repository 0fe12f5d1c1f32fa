package io.xrpc.protocol;

import java.nio.charset.StandardCharsets;

/**
 * The strings of a request head (service key, method signature, attachment names and values) go
 * on the wire as UTF-8 after a 16-bit length ({@code docs/PROTOCOL.md}). Callers encode the
 * routing strings once per method with {@link #shortStringBytes}, outside any codec.
 */
public final class WireStrings {
    /** Most UTF-8 bytes a 16-bit length can announce. */
    public static final int MAX_SHORT_STRING_BYTES = 0xFFFF;

    private WireStrings() {}

    /** UTF-8 bytes of a string that goes on the wire with a 16-bit length. */
    public static byte[] shortStringBytes(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_SHORT_STRING_BYTES) {
            throw new IllegalArgumentException(
                    "string of " + b.length + " UTF-8 bytes (expected: at most " + MAX_SHORT_STRING_BYTES + ")");
        }
        return b;
    }
}
