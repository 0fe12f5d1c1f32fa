package io.xrpc.serialize.protostuff;

import io.protostuff.CodedInput;
import io.protostuff.FilterInput;
import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.UninitializedMessageException;
import io.protostuff.WireFormat;
import io.protostuff.runtime.ArraySchemas;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;

/**
 * Protostuff's streaming input with every count it reads checked before protostuff allocates for
 * it, every value counted and every nesting level bounded against a {@link ReadGuard}. One per
 * message.
 *
 * <p>Protostuff's runtime allocates from counts it reads: {@code new int[len]} for an array
 * length, {@code Array.newInstance(type, len)} for an object array (the argument holder's
 * included), {@code new int[dims]} for array dimensions, and it adds {@code null} to a collection
 * as many times as a "null run" count says. About 30 bytes could claim gigabytes. The integers that
 * are such counts are recognised by the field that precedes them in protostuff 1.8.0's schemas:
 *
 * <ul>
 *   <li>field 1 of an {@link ArraySchemas.Base} (its {@code ID_ARRAY_LEN}): a primitive array must
 *       fit in the bytes left ({@link ReadGuard#checkLength}); a boxed one is written as
 *       {@code -(len + 1)} and may hold null runs, so its slots count against the object limit;</li>
 *   <li>field 2 of a collection schema: a null run, counted against the object limit;</li>
 *   <li>the sequence 15|17, 3, 2 of an object schema (array type, length, dimensions) and 20|21, 2
 *       (class array, dimensions): the length counts against the object limit, the dimensions
 *       stay between 1 and {@link ReadGuard#MAX_ARRAY_DIMENSIONS}; the argument holder's length
 *       must be the number of parameters.</li>
 * </ul>
 *
 * <p>It is also the schema protostuff calls back for every nested message (the trampoline
 * protostuff's own {@code GraphCodedInput} uses), so nested reads come through it too. Unknown
 * groups are skipped without recursion, a message that ends inside a nested one is refused as
 * truncated, and bytes after the message are refused.
 */
final class GuardedInput extends FilterInput<CodedInput> implements Schema<Object> {
    /** Deepest unknown group skipped (iteratively, so only a sanity bound). */
    private static final int MAX_NESTED_UNKNOWN = 256;

    private static final int NONE = 0;
    private static final int ARRAY_LENGTH = 1;
    private static final int OBJECT_ARRAY_LENGTH = 2;
    private static final int DIMENSIONS = 3;
    private static final int NULL_RUN = 4;

    private final long total;
    private final ReadGuard guard;
    /** Length the first object array at depth 1 (the argument holder) must have, or -1. */
    private int holderLength;

    private Schema<Object> pending;
    private int expect = NONE;
    private Schema<?> headerSchema;
    /** 1: saw an array type (15|17); 2: saw its length (3); 3: saw a class array type (20|21). */
    private int headerStep;
    /** Fields of the outermost message seen so far (bit n-1 for field n). */
    private long topFields;

    private GuardedInput(CodedInput input, long total, ReadGuard guard, int holderLength) {
        super(input);
        this.total = total;
        this.guard = guard;
        this.holderLength = holderLength;
    }

    /**
     * Reads one whole message of {@code in} (whose {@code available()} is its exact size) into
     * {@code message}.
     *
     * @param holderLength the number of arguments the holder's array must have, or -1
     */
    static <T> void mergeFrom(
            InputStream in, byte[] buffer, T message, Schema<T> schema, ReadGuard guard, int holderLength)
            throws IOException {
        int total = in.available();
        CodedInput coded = new CodedInput(in, buffer, true);
        coded.setSizeLimit(total);
        GuardedInput g = new GuardedInput(coded, total, guard, holderLength);
        schema.mergeFrom(g, message);
        coded.checkLastTagWas(0);
        if (coded.getTotalBytesRead() != total) {
            throw new SerializationException(
                    (total - coded.getTotalBytesRead()) + " bytes left over after the message");
        }
    }

    private long remaining() {
        return total - input.getTotalBytesRead();
    }

    private void charge(long slots, String what) {
        if (slots < 0) {
            throw new PayloadLimitException(what + " of " + slots + " (expected: >= 0)");
        }
        guard.count(slots);
    }

    @Override
    public <T> int readFieldNumber(Schema<T> schema) throws IOException {
        int before = input.getTotalBytesRead();
        int n = input.readFieldNumber(schema);
        expect = NONE;
        if (n == 0) {
            // A nested message ends with an END_GROUP tag, which takes a byte; protostuff also
            // returns 0 at the end of the input, which would quietly close every open message.
            if (guard.depth() > 0 && input.getTotalBytesRead() == before) {
                throw new SerializationException("message truncated inside a nested value");
            }
            headerSchema = null;
            return 0;
        }
        guard.count(1);
        if (guard.depth() == 0 && n <= 64) {
            // Protobuf merges concatenated messages, the later winning: a second holder appended to
            // the first would replace the arguments instead of being refused as bytes left over.
            long bit = 1L << (n - 1);
            if ((topFields & bit) != 0) {
                throw new SerializationException("field " + n + " of the message appears twice (bytes left over"
                        + " after the message: a second one appended?)");
            }
            topFields |= bit;
        }
        if (schema instanceof ArraySchemas.Base) {
            if (n == 1) {
                expect = ARRAY_LENGTH;
            }
        } else if (schema.typeClass() == Collection.class) {
            if (n == 2) {
                expect = NULL_RUN;
            }
        } else if (schema.typeClass() == Object.class) {
            if (schema == headerSchema && headerStep == 1 && n == 3) {
                expect = OBJECT_ARRAY_LENGTH;
                headerStep = 2;
                return n;
            }
            if (schema == headerSchema && (headerStep == 2 || headerStep == 3) && n == 2) {
                expect = DIMENSIONS;
                headerSchema = null;
                return n;
            }
            if (n == 15 || n == 17) {
                headerSchema = schema;
                headerStep = 1;
                return n;
            }
            if (n == 20 || n == 21) {
                headerSchema = schema;
                headerStep = 3;
                return n;
            }
        }
        headerSchema = null;
        return n;
    }

    @Override
    public int readInt32() throws IOException {
        int v = input.readInt32();
        if (expect == ARRAY_LENGTH) {
            expect = NONE;
            if (v >= 0) {
                ReadGuard.checkLength("a primitive array", v, 1, remaining());
            } else {
                charge(-(long) v - 1, "an array length"); // boxed: may hold null runs
            }
        }
        return v;
    }

    @Override
    public int readUInt32() throws IOException {
        int v = input.readUInt32();
        int e = expect;
        expect = NONE;
        switch (e) {
            case OBJECT_ARRAY_LENGTH -> {
                if (holderLength >= 0 && guard.depth() == 1) {
                    if (v != holderLength) {
                        throw new SerializationException(v + " arguments sent to a method that takes " + holderLength);
                    }
                    holderLength = -1;
                }
                charge(v & 0xFFFFFFFFL, "an object array length");
            }
            case NULL_RUN -> charge(v & 0xFFFFFFFFL, "a run of nulls");
            case DIMENSIONS -> {
                if (v < 1 || v > ReadGuard.MAX_ARRAY_DIMENSIONS) {
                    throw new PayloadLimitException("an array of " + (v & 0xFFFFFFFFL) + " dimensions (expected: 1 to "
                            + ReadGuard.MAX_ARRAY_DIMENSIONS + ")");
                }
            }
            default -> {}
        }
        return v;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T mergeObject(T value, Schema<T> schema) throws IOException {
        guard.enter();
        try {
            T v = value == null ? schema.newMessage() : value;
            headerSchema = null;
            pending = (Schema<Object>) schema;
            input.mergeObject(v, this); // protostuff calls back mergeFrom(..) below
            headerSchema = null;
            return v;
        } finally {
            guard.exit();
        }
    }

    @Override
    public void mergeFrom(Input ignored, Object message) throws IOException {
        Schema<Object> s = pending;
        pending = null;
        s.mergeFrom(this, message); // nested reads come back through this input
        if (!s.isInitialized(message)) {
            throw new UninitializedMessageException(message, s);
        }
    }

    @Override
    public <T> void handleUnknownField(int fieldNumber, Schema<T> schema) throws IOException {
        int tag = input.getLastTag();
        if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_START_GROUP) {
            input.skipField(tag); // no recursion for the other wire types
            return;
        }
        // Protostuff skips groups recursively, one level per byte: a few KiB overflow the stack.
        int open = 1;
        while (open > 0) {
            int t = input.readTag();
            if (t == 0) {
                throw new SerializationException("message truncated inside an unknown field");
            }
            guard.count(1);
            switch (WireFormat.getTagWireType(t)) {
                case WireFormat.WIRETYPE_START_GROUP -> {
                    open++;
                    if (open > MAX_NESTED_UNKNOWN) {
                        throw new PayloadLimitException(
                                "an unknown field nested deeper than " + MAX_NESTED_UNKNOWN + " levels");
                    }
                }
                case WireFormat.WIRETYPE_END_GROUP -> open--;
                default -> input.skipField(t);
            }
        }
    }

    // The trampoline's Schema plumbing, as in protostuff's GraphCodedInput: only mergeFrom is used.

    @Override
    public String getFieldName(int number) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int getFieldNumber(String name) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isInitialized(Object message) {
        return true;
    }

    @Override
    public String messageFullName() {
        throw new UnsupportedOperationException();
    }

    @Override
    public String messageName() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object newMessage() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Class<? super Object> typeClass() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void writeTo(Output output, Object message) {
        throw new UnsupportedOperationException();
    }
}
