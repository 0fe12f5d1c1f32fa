package io.xrpc.serialize;

/** What a serializer says when a value nests deeper than the thread's stack while being written. */
public final class WriteDepth {
    /** Formatted with the serializer's name. */
    public static final String TOO_DEEP = "the value nests deeper than the stack allows, most likely a cycle:"
            + " %s keeps no shared references, so an object reachable from itself cannot be written"
            + " (hessian can; see docs/SERIALIZATION.md)";

    private WriteDepth() {}

    /**
     * What a failed write throws: XRpc's refusal of a class as itself (libraries wrap it), a stack
     * overflow as {@link #TOO_DEEP} (a library's trace of it has a line per level, thousands for a
     * cycle), anything else as it came.
     */
    public static RuntimeException failure(String serializer, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotAllowedException c) {
                return c;
            }
            if (t instanceof StackOverflowError) {
                return new IllegalArgumentException(TOO_DEEP.formatted(serializer));
            }
        }
        return e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
}
