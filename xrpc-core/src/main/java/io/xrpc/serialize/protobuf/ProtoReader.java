package io.xrpc.serialize.protobuf;

import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.SerializationException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Protocol-buffer wire input from a buffer's position to its limit, treating every byte as
 * hostile: a length is checked against the bytes of its enclosing message before anything is
 * allocated for it, every value read or skipped is counted by the {@link ReadGuard}, and nested
 * messages count against its depth. Not thread-safe; one per message.
 */
final class ProtoReader {
    final ReadGuard guard;
    private final ByteBuffer in;
    private int pos;
    /** The end of the message being read (absolute). */
    private int limit;

    ProtoReader(ByteBuffer in, ReadGuard guard) {
        this.in = in;
        this.guard = guard;
        this.pos = in.position();
        this.limit = in.limit();
    }

    boolean atEnd() {
        return pos >= limit;
    }

    int remaining() {
        return limit - pos;
    }

    /** Moves the buffer's position to where reading stopped. */
    void finish() {
        in.position(pos);
    }

    long varint() throws SerializationException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= limit) {
                throw new SerializationException("a varint runs past the end of its message");
            }
            byte b = in.get(pos++);
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new SerializationException("a varint is longer than ten bytes");
    }

    int tag() throws SerializationException {
        long t = varint();
        if (t >>> 32 != 0 || (t >>> 3) == 0) {
            throw new SerializationException("malformed field tag " + t + " (field numbers are 1 to 536,870,911)");
        }
        return (int) t;
    }

    int fixed32() throws SerializationException {
        need(4, "a fixed32");
        int v = in.get(pos) & 0xFF
                | (in.get(pos + 1) & 0xFF) << 8
                | (in.get(pos + 2) & 0xFF) << 16
                | (in.get(pos + 3) & 0xFF) << 24;
        pos += 4;
        return v;
    }

    long fixed64() throws SerializationException {
        long lo = fixed32() & 0xFFFFFFFFL;
        long hi = fixed32() & 0xFFFFFFFFL;
        return lo | hi << 32;
    }

    private void need(int n, String what) throws SerializationException {
        if (limit - pos < n) {
            throw new SerializationException(what + " needs " + n + " bytes, " + (limit - pos) + " are left");
        }
    }

    /** A length prefix, checked against the bytes of the enclosing message. */
    int length(String what) {
        long n;
        try {
            n = varint();
        } catch (SerializationException e) {
            throw new PayloadLimitException(what + ": " + e.getMessage());
        }
        if (n < 0 || n > limit - pos) {
            throw new PayloadLimitException(
                    what + " claims " + n + " bytes, but only " + (limit - pos) + " are left in its message");
        }
        return (int) n;
    }

    byte[] bytes(String what) {
        int n = length(what);
        byte[] b = new byte[n];
        in.get(pos, b, 0, n);
        pos += n;
        return b;
    }

    String string(String what) throws SerializationException {
        int n = length(what);
        String s;
        if (in.hasArray()) {
            s = new String(in.array(), in.arrayOffset() + pos, n, StandardCharsets.UTF_8);
        } else {
            byte[] b = new byte[n];
            in.get(pos, b, 0, n);
            s = new String(b, StandardCharsets.UTF_8);
        }
        pos += n;
        return s;
    }

    /** Enters a length-delimited value; returns the outer limit for {@link #popLimit}. */
    int pushLimit(String what) {
        int n = length(what);
        int outer = limit;
        limit = pos + n;
        return outer;
    }

    void popLimit(int outer) throws SerializationException {
        if (pos != limit) {
            throw new SerializationException("a nested message was not read to its end");
        }
        limit = outer;
    }

    /** Skips a field this side does not know (a newer peer's), counting it against the limits. */
    void skip(int tag) throws SerializationException {
        guard.count(1);
        switch (tag & 7) {
            case ProtoWriter.VARINT -> varint();
            case ProtoWriter.FIXED64 -> {
                need(8, "a fixed64");
                pos += 8;
            }
            case ProtoWriter.LEN -> {
                int n = length("an unknown field " + (tag >>> 3)); // before pos is read: length() moves it
                pos += n;
            }
            case ProtoWriter.FIXED32 -> {
                need(4, "a fixed32");
                pos += 4;
            }
            default ->
                throw new SerializationException("field " + (tag >>> 3) + " has wire type " + (tag & 7)
                        + ", which proto3 does not use (groups)");
        }
    }
}
