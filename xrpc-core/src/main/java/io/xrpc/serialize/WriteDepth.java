package io.xrpc.serialize;

/** What a serializer says when a value nests deeper than the thread's stack while being written. */
public final class WriteDepth {
    /** Formatted with the serializer's name. */
    public static final String TOO_DEEP = "the value nests deeper than the stack allows, most likely a cycle:"
            + " %s keeps no shared references, so an object reachable from itself cannot be written"
            + " (hessian can; see docs/SERIALIZATION.md)";

    private WriteDepth() {
    }
}
