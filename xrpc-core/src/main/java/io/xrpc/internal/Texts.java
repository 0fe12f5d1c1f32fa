package io.xrpc.internal;

/** Text helpers for messages that may echo what a peer sent. */
public final class Texts {
    private Texts() {}

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

    /**
     * {@code s} as a log line or message may quote a peer's text: in double quotes, cut to
     * {@code max} characters as {@link #cut} does, and with quotes, backslashes and every control
     * character escaped, so that a caller's text can start no log line of its own.
     */
    public static String quote(String s, int max) {
        if (s == null) {
            return "null";
        }
        int n = Math.min(s.length(), max);
        StringBuilder b = new StringBuilder(n + 2).append('"');
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
        return s.length() > max
                ? b.append("... (").append(s.length()).append(" chars)").toString()
                : b.toString();
    }
}
