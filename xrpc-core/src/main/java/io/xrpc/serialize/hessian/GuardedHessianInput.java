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
import java.util.List;

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
    /** For each object reference index: the objects its value was built from, 0 while unfinished. */
    private long[] sizes = new long[16];
    /** Per nesting level: the guard's object count when the value began, and its reference index. */
    private final long[] frameStart;
    private final int[] frameRef;
    private int frames;

    GuardedHessianInput(InputStream in, long total, ReadGuard guard, ReadLimits limits) {
        super(in);
        this.total = total;
        this.guard = guard;
        this.frameStart = new long[limits.maxDepth() + 2];
        this.frameRef = new int[limits.maxDepth() + 2];
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
        long size = index < sizes.length ? sizes[index] : 0;
        guard.count(size > 0 ? size : 1); // a reference to a value still being read (a cycle) counts once
        return _refs.get(index);
    }

    private void begin() {
        long start = guard.objects();
        guard.enter();
        int d = ++frames;
        frameStart[d] = start;
        frameRef[d] = -1;
    }

    private void end() {
        int d = frames--;
        int ref = frameRef[d];
        if (ref >= 0 && ref < sizes.length) {
            sizes[ref] = Math.max(1, guard.objects() - frameStart[d]);
        }
        guard.exit();
    }

    @Override
    public int addRef(Object ref) {
        int index = super.addRef(ref);
        int d = frames;
        if (d > 0 && frameRef[d] < 0) {
            frameRef[d] = index; // the value now being read is this reference
        }
        if (index >= sizes.length) {
            sizes = Arrays.copyOf(sizes, Math.max(index + 1, sizes.length * 2));
        }
        sizes[index] = 0;
        return index;
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
