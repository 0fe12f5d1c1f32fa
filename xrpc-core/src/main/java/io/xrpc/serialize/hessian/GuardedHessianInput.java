package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import io.xrpc.internal.Types;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Hessian 2 input that bounds what one message may build. One per message.
 *
 * <ul>
 *   <li>Every value read through {@code readObject} is counted and nested against the
 *       {@link ReadGuard}.</li>
 *   <li>Back-references ({@code 'Q'}) are resolved here, with their index checked, and each one
 *       counts as many objects as the value it points to was built from, references inside it
 *       included. A graph that shares sub-structure thus counts as the tree it unfolds into, which
 *       is what hashing it costs: the nested-{@code HashSet} bomb, whose hashing doubled with every
 *       level (255 bytes cost 0.2 s of CPU, 331 bytes 5.5 s), is refused as soon as its count
 *       passes the limit, before the set that would hash it is filled.</li>
 *   <li>Putting a value into a hash set, or using it as a hash map key, hashes it: a walk over
 *       its unfolded tree down to objects hashed by identity, and an equal-hash comparison up to
 *       a walk per level. So there, each reference inside it on that walk costs again the size
 *       times the height of what it points to. Without this, a shared graph just under the limit
 *       wrapped in 100 singleton sets was hashed 100 times: 465 bytes cost 0.6 s of CPU. Values
 *       without references inside (the usual keys and elements) cost nothing extra: their
 *       hashing is bounded by their bytes. Map values are not hashed and not charged.</li>
 *   <li>A half-built value must not be hashed: its hash walks whatever it holds so far, and a
 *       graph of back-references to values still being read unfolds into exponentially many
 *       paths (350 bytes kept a thread hashing for seconds, beyond the reach of the deadline).
 *       So a collection or map may not contain itself (a reference to one still being read), and
 *       a value put into a hash set or used as a key may not refer to a value still being read.
 *       Parent links between objects stay possible.</li>
 *   <li>The lengths of fixed-length lists and the field counts of class definitions are claimed
 *       against the message size ({@link #claim}), in sum: every element and field name takes at
 *       least a byte of its own, so together they cannot exceed the message. (Hessian allocates a
 *       whole {@code int[]} or {@code String[]} from the claim before reading a byte of it: 11
 *       bytes used to allocate 64 MiB.)</li>
 *   <li>A value read for a declared type must be of that type: Hessian stores field values with
 *       {@code Unsafe} and no type check, so a reference or a handle of another class would
 *       otherwise land in a field of an unrelated type.</li>
 * </ul>
 */
final class GuardedHessianInput extends Hessian2Input {
    private static final Object NOT_A_REFERENCE = new Object();

    private final ReadGuard guard;
    private final long total;
    private long claimed;
    private static final int NONE = Integer.MAX_VALUE;
    /** Nesting levels the per-level arrays start with (they grow to what the guard allows). */
    private static final int INITIAL_LEVELS = 16;
    /** What filling a value does with its children: nothing, hashes them all, hashes the keys. */
    private static final byte PLAIN = 0;

    private static final byte HASH_SET = 1;
    private static final byte HASH_MAP = 2;
    /** Within a hash map: the next child is a key, a value, or unknown (a reader that does not say). */
    private static final byte UNKNOWN = 0;

    private static final byte KEY = 1;
    private static final byte VALUE = 2;

    /** Objects built so far, a reference counting as the tree it stands for (hash charges excluded). */
    private long built;
    /** For each object reference index: the objects its value was built from, 0 while unfinished. */
    private long[] sizes = new long[16];
    /** For each object reference index: the height of its value's tree. */
    private int[] heights = new int[16];
    /** For each object reference index: the earliest value still unfinished that its value referred to. */
    private int[] opens = new int[16];
    /**
     * Per nesting level: {@link #built} when the value began; its reference index; what filling
     * it does with its children and, for a map, what the next child is; its tallest child; the
     * weight of the references inside it (what hashing it would walk again); the earliest
     * unfinished value it refers to.
     */
    private long[] frameStart = new long[INITIAL_LEVELS];

    private int[] frameRef = new int[INITIAL_LEVELS];
    private byte[] frameKind = new byte[INITIAL_LEVELS];
    private byte[] frameNext = new byte[INITIAL_LEVELS];
    private int[] frameHeight = new int[INITIAL_LEVELS];
    private long[] frameWeight = new long[INITIAL_LEVELS];
    private int[] frameOpen = new int[INITIAL_LEVELS];
    private int frames;

    GuardedHessianInput(InputStream in, long total, ReadGuard guard) {
        super(in);
        this.total = total;
        this.guard = guard;
    }

    /** A list length or class field count read from the payload, before Hessian allocates for it. */
    void claim(String what, long count) {
        if (count < 0) {
            throw new PayloadLimitException(what + " claims " + count + " elements (expected: >= 0)");
        }
        long before = claimed;
        claimed = before + count;
        if (claimed > total) {
            throw new PayloadLimitException(what + " claims " + count + " elements; with the " + before
                    + " claimed before, more than the " + total + " bytes of the message can hold");
        }
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public Object readObject(Class cl, Class<?>... expectedTypes) throws IOException {
        if (cl == null || cl == Object.class) {
            return readObject((List<Class<?>>) null); // what Hessian does too; counted there
        }
        Object v = reference();
        if (v == NOT_A_REFERENCE) {
            begin();
            v = null;
            try {
                v = super.readObject(cl, expectedTypes);
            } finally {
                end(v);
            }
        }
        if (v != null && !Types.box(cl).isInstance(v)) {
            throw new SerializationException("expected a " + cl.getName() + " but the payload holds a "
                    + v.getClass().getName());
        }
        return v;
    }

    @Override
    public Object readObject(List<Class<?>> expectedTypes) throws IOException {
        Object v = reference();
        if (v != NOT_A_REFERENCE) {
            return v;
        }
        begin();
        v = null;
        try {
            v = super.readObject(expectedTypes);
            return v;
        } finally {
            end(v);
        }
    }

    /** Resolves a back-reference if one comes next, charging its expanded size; else leaves the input alone. */
    private Object reference() throws IOException {
        int tag = read();
        if (tag != 'Q') {
            if (tag >= 0) {
                unread();
            }
            return NOT_A_REFERENCE;
        }
        int index = readInt();
        int known = _refs == null ? 0 : _refs.size();
        if (index < 0 || index >= known) {
            throw new SerializationException("reference to object " + index + " of the " + known + " read so far");
        }
        Object target = _refs.get(index);
        boolean tracked = index < sizes.length;
        long size = tracked ? sizes[index] : 0;
        int height = tracked ? Math.max(1, heights[index]) : 1;
        int open;
        if (size == 0) { // a value still being read: a parent link, or a cycle
            if (target instanceof Collection || target instanceof Map) {
                throw new SerializationException("a " + target.getClass().getName() + " that contains itself"
                        + " (a reference to it while it is still being read)");
            }
            size = 1;
            open = index;
        } else {
            open = opens[index];
        }
        built += size;
        guard.count(size);
        added(target, size * height, height, open);
        return target;
    }

    private void begin() {
        long start = built;
        guard.enter(); // counts the value's first object
        int d = ++frames;
        if (d == frameStart.length) {
            growFrames();
        }
        frameStart[d] = start;
        built++;
        frameRef[d] = -1;
        frameKind[d] = PLAIN;
        frameNext[d] = UNKNOWN;
        frameHeight[d] = 0;
        frameWeight[d] = 0;
        frameOpen[d] = NONE;
    }

    private void growFrames() {
        int n = frameStart.length * 2; // the guard bounds the depth
        frameStart = Arrays.copyOf(frameStart, n);
        frameRef = Arrays.copyOf(frameRef, n);
        frameKind = Arrays.copyOf(frameKind, n);
        frameNext = Arrays.copyOf(frameNext, n);
        frameHeight = Arrays.copyOf(frameHeight, n);
        frameWeight = Arrays.copyOf(frameWeight, n);
        frameOpen = Arrays.copyOf(frameOpen, n);
    }

    private void end(Object value) throws IOException {
        int d = frames--;
        int height = frameHeight[d] + 1;
        int open = frameOpen[d];
        int ref = frameRef[d];
        if (ref >= 0 && ref < sizes.length) {
            sizes[ref] = built - frameStart[d];
            heights[ref] = height;
            opens[ref] = open;
        }
        guard.exit();
        if (value != null) { // null when reading failed: the frames unwind
            added(value, frameWeight[d], height, open);
        }
    }

    /**
     * A value became a child of the one being read: {@code weight} is what hashing it walks again
     * through references, {@code open} the earliest unfinished value it refers to, or NONE.
     */
    private void added(Object value, long weight, int height, int open) throws IOException {
        int p = frames;
        if (p == 0) {
            return;
        }
        if (height > frameHeight[p]) {
            frameHeight[p] = height;
        }
        if (weight == 0 && open == NONE) {
            return; // nothing to add and nothing unfinished (strings, numbers, plain values)
        }
        if (!hashesByContent(value)) {
            return; // hashing stops at it: nothing inside costs anything where it is hashed
        }
        frameWeight[p] += weight;
        if (open < frameOpen[p]) {
            frameOpen[p] = open;
        }
        byte kind = frameKind[p];
        if (kind == PLAIN || (kind == HASH_MAP && frameNext[p] == VALUE)) {
            return;
        }
        if (open != NONE && open < sizes.length && sizes[open] == 0) {
            throw new SerializationException("a " + value.getClass().getName() + " put into a hash "
                    + (kind == HASH_SET ? "set" : "map as a key") + " refers to a value still being read"
                    + " (hashing a half-built graph)");
        }
        if (weight > 0) {
            guard.count(weight);
        }
    }

    /** The serializer factory this input reads with. */
    SerializerFactory factory() {
        return findSerializerFactory();
    }

    /**
     * Called by XRpc's map reader before each key and each value, so that only keys are treated as
     * hashed; a map read otherwise has all its children treated as keys.
     */
    void nextMapChild(boolean key) {
        frameNext[frames] = key ? KEY : VALUE;
    }

    @Override
    public int addRef(Object ref) {
        int index = super.addRef(ref);
        int d = frames;
        if (d > 0 && frameRef[d] < 0) {
            frameRef[d] = index; // the value now being read is this reference
            frameKind[d] = kind(ref);
        }
        if (index >= sizes.length) {
            int n = Math.max(index + 1, sizes.length * 2);
            sizes = Arrays.copyOf(sizes, n);
            heights = Arrays.copyOf(heights, n);
            opens = Arrays.copyOf(opens, n);
        }
        sizes[index] = 0;
        heights[index] = 0;
        opens[index] = NONE;
        return index;
    }

    /** What filling {@code value} does with what is put into it. */
    private static byte kind(Object value) {
        if (value instanceof Set && !(value instanceof SortedSet) && !(value instanceof EnumSet)) {
            return HASH_SET;
        }
        if (value instanceof Map && !(value instanceof SortedMap) && !(value instanceof EnumMap)) {
            return HASH_MAP;
        }
        return PLAIN;
    }

    /** Whether hashing a value of this class walks its content (it does not when the hash is the identity's). */
    private static final ClassValue<Boolean> CONTENT_HASH = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("hashCode").getDeclaringClass() != Object.class;
            } catch (NoSuchMethodException e) {
                return true;
            }
        }
    };

    private static boolean hashesByContent(Object value) {
        return value != null && CONTENT_HASH.get(value.getClass());
    }

    /**
     * Names the unexpected byte and nothing more. Hessian's own reads the whole value that follows
     * to name its class, swallowing what that throws: a payload of a few hundred bytes nested such
     * errors inside one another and allocated megabytes of exception stack traces (found by
     * {@code PayloadFuzzTest}).
     */
    @Override
    protected IOException expect(String expected, int ch) {
        return new HessianProtocolException(
                ch < 0
                        ? "expected " + expected + " at the end of the message"
                        : "expected " + expected + " at 0x" + Integer.toHexString(ch & 0xff));
    }
}
