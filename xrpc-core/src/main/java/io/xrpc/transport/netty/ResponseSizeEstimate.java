package io.xrpc.transport.netty;

/**
 * About how large some responses are: the largest seen lately, 0 before the first. A larger
 * response raises the figure at once; every 256 responses it is lowered by a quarter (not below
 * the latest), so it follows responses that shrink, and it is written only then. Racy by design:
 * a lost update only delays a change.
 */
final class ResponseSizeEstimate {
    private volatile int bytes;
    // Counts responses between decays; lost increments only delay a decay.
    private int responses;

    int get() {
        return bytes;
    }

    /** Records the size of a response just encoded; true when that changed the figure. */
    boolean record(int size) {
        int e = bytes;
        if (size > e) {
            bytes = size;
            return true;
        }
        if ((++responses & 0xFF) == 0 && e > 0) {
            bytes = Math.max(size, e - (e >> 2));
            return true;
        }
        return false;
    }
}
