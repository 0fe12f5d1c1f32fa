package io.xrpc.serialize;

/**
 * The bookkeeping of one message being read, for {@link Serializer} implementations: it counts
 * objects and nesting against {@link ReadLimits}, checks lengths a payload claims against the
 * bytes left, and stops a read that outlives its call's deadline. Each check throws
 * {@link PayloadLimitException} before anything claimed is allocated.
 *
 * <p>Not thread-safe: a serializer keeps one per reading thread (or per message) and calls
 * {@link #begin} before every message.
 */
public final class ReadGuard {
    /** Dimensions an array type read from a payload may have (a class name of 255 '[' is legal). */
    public static final int MAX_ARRAY_DIMENSIONS = 32;

    /** Objects read between two looks at the clock (about 25 ns each): a hash set of colliding keys makes each one dear. */
    private static final int DEADLINE_CHECK_EVERY = 64;

    private final int maxObjects;
    private final int maxDepth;
    private long objects;
    private int depth;
    private long deadlineNanos = Serializer.NO_DEADLINE;
    private long nextDeadlineCheck;

    public ReadGuard(ReadLimits limits) {
        this.maxObjects = limits.maxObjects();
        this.maxDepth = limits.maxDepth();
    }

    /** Starts a message; {@code deadlineNanos} is a {@link System#nanoTime()} value or {@link Serializer#NO_DEADLINE}. */
    public void begin(long deadlineNanos) {
        this.objects = 0;
        this.depth = 0;
        this.deadlineNanos = deadlineNanos;
        this.nextDeadlineCheck = DEADLINE_CHECK_EVERY;
    }

    /** A value starts: one object more, one level deeper. Pair with {@link #exit()}. */
    public void enter() {
        if (depth >= maxDepth) {
            throw new PayloadLimitException("values nest deeper than " + maxDepth + " levels (the limit)");
        }
        depth++;
        count(1);
    }

    /** The value begun by the last {@link #enter()} is complete. */
    public void exit() {
        depth--;
    }

    /** Current nesting depth. */
    public int depth() {
        return depth;
    }

    /**
     * Counts {@code n} more objects: a value read, or the elements a reference to an already-read
     * value stands for.
     */
    public void count(long n) {
        long o = objects + n;
        objects = o;
        if (o > maxObjects) {
            throw new PayloadLimitException("the message builds more than " + maxObjects
                    + " objects (the limit; a shared object counts once per reference to it, and again for"
                    + " hashing where a hash set or map holds it)");
        }
        if (o >= nextDeadlineCheck) {
            nextDeadlineCheck = o + DEADLINE_CHECK_EVERY;
            checkDeadline();
        }
    }

    /** Fails when the deadline given to {@link #begin} has passed. */
    private void checkDeadline() {
        if (deadlineNanos != Serializer.NO_DEADLINE && System.nanoTime() - deadlineNanos > 0) {
            throw new ReadDeadlineException(
                    "the call's deadline passed while its payload was read (" + objects + " objects so far)");
        }
    }

    /**
     * Refuses a claimed length that the rest of the message cannot hold.
     *
     * @param what       the claiming type, as the error will name it ({@code int[]}, {@code java.util.ArrayList})
     * @param claimed    the elements (or characters, bytes) claimed
     * @param minBytes   the fewest bytes one element takes on the wire
     * @param remaining  bytes left unread in the message
     */
    public static void checkLength(String what, long claimed, int minBytes, long remaining) {
        if (claimed < 0 || claimed * minBytes > remaining) {
            throw new PayloadLimitException(what + " claims " + claimed + " elements, but only " + remaining
                    + " bytes are left in the message");
        }
    }

    /**
     * What to throw for a failure inside a library while reading: a refusal of XRpc's anywhere in
     * the cause chain is rethrown as itself (libraries wrap them), anything else is returned as a
     * {@link SerializationException} that says what was being read.
     */
    public static SerializationException failure(String reading, Throwable t) {
        SerializationException ours = null;
        int hops = 0;
        for (Throwable c = t; c != null && hops < 64; c = c.getCause(), hops++) {
            if (c instanceof ClassNotAllowedException r) {
                throw r;
            }
            if (c instanceof PayloadLimitException r) {
                throw r;
            }
            if (c instanceof SerializationException s) {
                ours = s; // the innermost says what was wrong; libraries wrap it in their own words
            }
        }
        if (ours != null) {
            return ours == t ? ours : new SerializationException(ours.getMessage(), t);
        }
        if (t instanceof StackOverflowError) {
            return new SerializationException(
                    "cannot read " + reading + ": values nest too deeply for the thread's stack");
        }
        return new SerializationException("cannot read " + reading + ": " + t, t);
    }
}
