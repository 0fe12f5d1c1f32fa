package io.xrpc.internal;

/** Text helpers for messages that may echo what a peer sent. */
public final class Texts {
    private Texts() {
    }

    /**
     * {@code s} as a message may quote it: at most {@code max} characters, a longer string cut and
     * marked with its length, so a peer's 64 KiB service name is not echoed back whole.
     */
    public static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        return s.substring(0, max) + "... (" + s.length() + " chars)";
    }
}
