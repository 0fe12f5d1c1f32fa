package io.xrpc.serialize;

import io.xrpc.internal.Checks;

/**
 * What reading one message may build, whatever its bytes claim. Every built-in serializer
 * enforces these, together with a rule that needs no setting: a length or element count read from
 * a payload may not claim more elements than the bytes left in the message could hold. A message
 * over a limit fails with {@link PayloadLimitException}; nothing it claimed is allocated.
 *
 * <p>The defaults are far above what real payloads reach (a list of a million boxed integers is
 * about 3 MB on the wire) and low enough that no message can keep a thread busy for long: reading
 * a million objects takes tens of milliseconds. Immutable and thread-safe.
 */
public record ReadLimits(int maxObjects, int maxDepth) {
    /** Default of {@link #maxObjects()}: 1,000,000. */
    public static final int DEFAULT_MAX_OBJECTS = 1_000_000;
    /** Default of {@link #maxDepth()}: 128. */
    public static final int DEFAULT_MAX_DEPTH = 128;

    private static final ReadLimits DEFAULTS = new ReadLimits(DEFAULT_MAX_OBJECTS, DEFAULT_MAX_DEPTH);

    /**
     * @param maxObjects objects one message may build, counting an object once per reference to it
     *                   (so a graph that shares sub-structure counts as the tree it unfolds into,
     *                   which is what hashing or walking it costs), and its shared part again,
     *                   times its height, where a hash set or map holds it
     * @param maxDepth   how deeply values may nest inside one another
     */
    public ReadLimits {
        Checks.atLeast("maxObjects", maxObjects, 1);
        Checks.atLeast("maxDepth", maxDepth, 1);
    }

    public static ReadLimits defaults() {
        return DEFAULTS;
    }

    /** The limits given, sharing the default instance when they are the defaults. */
    public static ReadLimits of(int maxObjects, int maxDepth) {
        return maxObjects == DEFAULT_MAX_OBJECTS && maxDepth == DEFAULT_MAX_DEPTH
                ? DEFAULTS
                : new ReadLimits(maxObjects, maxDepth);
    }
}
