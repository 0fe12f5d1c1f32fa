package io.xrpc.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the builders, with messages in the form {@code "name: value (expected: ...)"}. */
public final class Checks {
    private Checks() {
    }

    public static String checkName(String what, String value) {
        Objects.requireNonNull(value, what);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '/' || c == ':' || Character.isWhitespace(c)) {
                throw new IllegalArgumentException(what + ": '" + value
                        + "' (expected: no '/', ':' or white space)");
            }
        }
        return value;
    }

    public static int atLeast(String what, int n, int min) {
        if (n < min) {
            throw new IllegalArgumentException(what + ": " + n + " (expected: >= " + min + ")");
        }
        return n;
    }

    public static long atLeast(String what, long n, long min) {
        if (n < min) {
            throw new IllegalArgumentException(what + ": " + n + " (expected: >= " + min + ")");
        }
        return n;
    }

    /** {@code d}, at least {@code min} (of which the message names {@code minName}). */
    public static Duration atLeast(String what, Duration d, String minName, Duration min) {
        Objects.requireNonNull(d, what);
        if (d.compareTo(min) < 0) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: >= " + minName + " " + min + ")");
        }
        return d;
    }

    public static Duration notNegative(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: >= 0)");
        }
        return d;
    }

    public static Duration checkPositive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
        }
        if (d.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: at most " + Integer.MAX_VALUE + " ms)");
        }
        return d;
    }
}
