package io.xrpc.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the builders, with messages in the form {@code "name: value (expected: ...)"}. */
public final class Checks {
    private Checks() {}

    public static String checkName(String what, String value) {
        Objects.requireNonNull(value, what);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '/' || c == ':' || Character.isWhitespace(c)) {
                throw new IllegalArgumentException(what + ": '" + value + "' (expected: no '/', ':' or white space)");
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

    /** Above zero and within an int of milliseconds (what timers and ZooKeeper's client take). */
    public static Duration checkPositive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
        }
        return withinIntMillis(what, d, "> 0");
    }

    /** Zero or more and within an int of milliseconds. */
    public static Duration notNegativeIntMillis(String what, Duration d) {
        return withinIntMillis(what, notNegative(what, d), ">= 0");
    }

    private static Duration withinIntMillis(String what, Duration d, String lower) {
        if (d.compareTo(MAX_INT_MILLIS) > 0) {
            throw new IllegalArgumentException(
                    what + ": " + d + " (expected: " + lower + " and at most " + MAX_INT_MILLIS + ")");
        }
        return d;
    }

    private static final Duration MAX_INT_MILLIS = Duration.ofMillis(Integer.MAX_VALUE);

    /** A retry budget's size (1 to 1000 tokens, gRPC's range) and refill (more than 0, at most 1 a success). */
    public static void retryBudget(int maxTokens, double tokenRatio) {
        if (maxTokens < 1 || maxTokens > 1000) {
            throw new IllegalArgumentException("retry budget maxTokens: " + maxTokens + " (expected: 1 to 1000)");
        }
        if (!(tokenRatio > 0 && tokenRatio <= 1)) {
            throw new IllegalArgumentException(
                    "retry budget tokenRatio: " + tokenRatio + " (expected: more than 0 and at most 1)");
        }
    }
}
