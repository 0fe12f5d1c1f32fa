package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
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
 *   <li>Putting a value into a hash set or map hashes it (a walk over its whole unfolded tree)
 *       and may compare it with an equal-hash one (up to a walk per level), so a value that
 *       shares sub-structure costs, there, what it unfolds to beyond the objects actually read,
 *       times its height. Without this, a shared graph just under the limit wrapped in 100
 *       singleton sets was hashed 100 times: 465 bytes cost 0.6 s of CPU. Values without shared
 *       parts (the usual keys, elements and map values) cost nothing extra: their hashing is
 *       bounded by their bytes.</li>
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
    /** Objects built so far, a reference counting as the tree it stands for (hash charges excluded). */
    private long built;
    /** Objects actually read so far (references excluded). */
    private long distinct;
    /** For each object reference index: the objects its value was built from, 0 while unfinished. */
    private long[] sizes = new long[16];
    /** For each object reference index: the height of its value's tree, 0 while unfinished. */
    private int[] heights = new int[16];
    /**
     * Per nesting level: {@link #built} and {@link #distinct} when the value began, its reference
     * index, whether filling it hashes its children, its tallest child.
     */
    private final long[] frameStart;
    private final long[] frameDistinct;
    private final int[] frameRef;
    private final boolean[] frameHashed;
    private final int[] frameHeight;
    private int frames;

    GuardedHessianInput(InputStream in, long total, ReadGuard guard, ReadLimits limits) {
        super(in);
        this.total = total;
        this.guard = guard;
        int levels = limits.maxDepth() + 2;
        this.frameStart = new long[levels];
        this.frameDistinct = new long[levels];
        this.frameRef = new int[levels];
        this.frameHashed = new boolean[levels];
        this.frameHeight = new int[levels];
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
            try {
                v = super.readObject(cl, expectedTypes);
            } finally {
                end();
            }
        }
        if (v != null && !box(cl).isInstance(v)) {
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
        try {
            return super.readObject(expectedTypes);
        } finally {
            end();
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
        boolean tracked = index < sizes.length;
        long size = tracked ? sizes[index] : 0;
        if (size == 0) { // a reference to a value still being read (a cycle) counts once
            size = 1;
        }
        built += size;
        guard.count(size);
        added(size, tracked ? Math.max(1, heights[index]) : 1); // all of it shared
        return _refs.get(index);
    }

    private void begin() {
        long start = built;
        guard.enter(); // counts the value's first object
        int d = ++frames;
        frameStart[d] = start;
        frameDistinct[d] = distinct;
        built++;
        distinct++;
        frameRef[d] = -1;
        frameHashed[d] = false;
        frameHeight[d] = 0;
    }

    private void end() {
        int d = frames--;
        long size = built - frameStart[d];
        int height = frameHeight[d] + 1;
        int ref = frameRef[d];
        if (ref >= 0 && ref < sizes.length) {
            sizes[ref] = size;
            heights[ref] = height;
        }
        guard.exit();
        added(size - (distinct - frameDistinct[d]), height);
    }

    /**
     * A value became a child of the one being read: {@code shared} of its unfolded objects came
     * from references, {@code height} is its depth in levels.
     */
    private void added(long shared, int height) {
        int p = frames;
        if (p == 0) {
            return;
        }
        if (height > frameHeight[p]) {
            frameHeight[p] = height;
        }
        if (shared > 0 && frameHashed[p]) {
            guard.count(shared * height);
        }
    }

    @Override
    public int addRef(Object ref) {
        int index = super.addRef(ref);
        int d = frames;
        if (d > 0 && frameRef[d] < 0) {
            frameRef[d] = index; // the value now being read is this reference
            frameHashed[d] = hashes(ref);
        }
        if (index >= sizes.length) {
            int n = Math.max(index + 1, sizes.length * 2);
            sizes = Arrays.copyOf(sizes, n);
            heights = Arrays.copyOf(heights, n);
        }
        sizes[index] = 0;
        heights[index] = 0;
        return index;
    }

    /** Whether filling {@code value} hashes what is put into it (its elements, or its keys). */
    private static boolean hashes(Object value) {
        return (value instanceof Set && !(value instanceof SortedSet) && !(value instanceof EnumSet))
                || (value instanceof Map && !(value instanceof SortedMap) && !(value instanceof EnumMap));
    }

    /**
     * Names the unexpected byte and nothing more. Hessian's own reads the whole value that follows
     * to name its class, swallowing what that throws: a payload of a few hundred bytes nested such
     * errors inside one another and allocated megabytes of exception stack traces (found by
     * {@code PayloadFuzzTest}).
     */
    @Override
    protected IOException expect(String expected, int ch) {
        return new HessianProtocolException(ch < 0 ? "expected " + expected + " at the end of the message"
                : "expected " + expected + " at 0x" + Integer.toHexString(ch & 0xff));
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) {
            return Integer.class;
        } else if (c == long.class) {
            return Long.class;
        } else if (c == boolean.class) {
            return Boolean.class;
        } else if (c == double.class) {
            return Double.class;
        } else if (c == float.class) {
            return Float.class;
        } else if (c == short.class) {
            return Short.class;
        } else if (c == byte.class) {
            return Byte.class;
        } else if (c == char.class) {
            return Character.class;
        }
        return Void.class;
    }
}
