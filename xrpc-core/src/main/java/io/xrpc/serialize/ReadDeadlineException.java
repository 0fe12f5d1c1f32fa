package io.xrpc.serialize;

/**
 * The call's deadline passed while its payload was being read ({@link ReadGuard}); the reader
 * stopped there. A server answers the call {@code DEADLINE_EXCEEDED} without running it; a client
 * fails it the same way.
 */
public class ReadDeadlineException extends PayloadLimitException {
    private static final long serialVersionUID = 1L;

    public ReadDeadlineException(String message) {
        super(message);
    }
}
