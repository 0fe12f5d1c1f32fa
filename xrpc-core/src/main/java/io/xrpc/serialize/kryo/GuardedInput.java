package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import io.xrpc.internal.ByteBufferInputStream;
import io.xrpc.serialize.ReadGuard;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Kryo's input with every length it reads checked against the bytes left in the message before
 * Kryo allocates for it: strings, primitive arrays, and (through {@link #expectLength}) the
 * element counts of maps and object arrays. Kryo itself allocates whatever a length says (an
 * 8-byte payload claiming a byte[] of 2^30 elements made it allocate 1 GiB).
 */
final class GuardedInput extends Input {
    /** Characters of string scratch a thread keeps between messages (16 KiB). */
    static final int MAX_RETAINED_CHARS = 8 * 1024;

    private final GuardedKryo kryo;
    private String expectedLength;
    private boolean readingString;

    GuardedInput(GuardedKryo kryo, int bufferSize) {
        super(bufferSize);
        this.kryo = kryo;
    }

    /** Bytes of the message not yet read: what is buffered plus what the stream still holds. */
    long remaining() {
        long r = (long) limit - position;
        if (inputStream != null) {
            try {
                r += inputStream.available();
            } catch (IOException e) {
                throw new KryoException(e);
            }
        }
        return r;
    }

    /**
     * Reads a message held in {@code message} (its position to its limit), which this leaves at its
     * limit. One that fits the buffer is copied into it whole, so that Kryo reads from an array as
     * it does on its own (through a stream, refilling and asking the stream what is left took a
     * fifth of reading a page); a larger one is read through a stream.
     */
    void attach(ByteBuffer message) {
        int n = message.remaining();
        if (n <= buffer.length) {
            message.get(buffer, 0, n);
            setBuffer(buffer, 0, n);
        } else {
            setInputStream(new ByteBufferInputStream(message));
        }
    }

    /** The next {@link #readVarInt(boolean)} is the element count (plus one) of a {@code what}. */
    void expectLength(String what) {
        expectedLength = what;
    }

    /** Detaches the stream and gives back string scratch grown by a large message. */
    void finish() {
        setInputStream(null);
        expectedLength = null;
        readingString = false;
        if (chars.length > MAX_RETAINED_CHARS) {
            chars = new char[32];
        }
    }

    int scratchChars() {
        return chars.length;
    }

    private void check(String what, long claimed, int minBytes) {
        ReadGuard.checkLength(what, claimed, minBytes, remaining());
    }

    @Override
    public int readVarInt(boolean optimizePositive) {
        int v = super.readVarInt(optimizePositive);
        String what = expectedLength;
        if (what != null) {
            expectedLength = null;
            if (v != 0) { // 0 is null; n + 1 is a count of n
                check(what, v - 1L, 1);
            }
        }
        return v;
    }

    /**
     * Kryo reads two kinds of length with this: the characters of a UTF-8 string and the elements
     * of a collection, each written plus one. Both take at least a byte per unit, but for a
     * collection of nothing but nulls, which Kryo writes in no bytes per element; such a
     * collection longer than the rest of its message is refused with the rest.
     */
    @Override
    public int readVarIntFlag(boolean optimizePositive) {
        int v = super.readVarIntFlag(optimizePositive);
        if (v != 0) {
            check(readingString ? "java.lang.String" : kryo.readingTypeName(), v - 1L, 1);
        }
        return v;
    }

    @Override
    public String readString() {
        readingString = true;
        try {
            return super.readString();
        } finally {
            readingString = false;
        }
    }

    @Override
    public StringBuilder readStringBuilder() {
        readingString = true;
        try {
            return super.readStringBuilder();
        } finally {
            readingString = false;
        }
    }

    @Override
    public byte[] readBytes(int length) {
        check("byte[]", length, 1);
        return super.readBytes(length);
    }

    @Override
    public int[] readInts(int length) {
        check("int[]", length, 4);
        return super.readInts(length);
    }

    @Override
    public int[] readInts(int length, boolean optimizePositive) {
        check("int[]", length, varEncoding ? 1 : 4);
        return super.readInts(length, optimizePositive);
    }

    @Override
    public long[] readLongs(int length) {
        check("long[]", length, 8);
        return super.readLongs(length);
    }

    @Override
    public long[] readLongs(int length, boolean optimizePositive) {
        check("long[]", length, varEncoding ? 1 : 8);
        return super.readLongs(length, optimizePositive);
    }

    @Override
    public float[] readFloats(int length) {
        check("float[]", length, 4);
        return super.readFloats(length);
    }

    @Override
    public double[] readDoubles(int length) {
        check("double[]", length, 8);
        return super.readDoubles(length);
    }

    @Override
    public short[] readShorts(int length) {
        check("short[]", length, 2);
        return super.readShorts(length);
    }

    @Override
    public char[] readChars(int length) {
        check("char[]", length, 2);
        return super.readChars(length);
    }

    @Override
    public boolean[] readBooleans(int length) {
        check("boolean[]", length, 1);
        return super.readBooleans(length);
    }
}
