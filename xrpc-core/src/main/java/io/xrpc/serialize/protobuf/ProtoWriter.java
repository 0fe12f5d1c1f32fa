package io.xrpc.serialize.protobuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Protocol-buffer wire output into a growing array. A length-delimited value is written in place
 * after a one-byte length slot, and moved up when its length needs more bytes, so nothing is
 * measured twice. Not thread-safe.
 */
final class ProtoWriter {
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LEN = 2;
    static final int FIXED32 = 5;

    /** What a writer keeps between messages; a larger array is dropped after use. */
    private static final int KEEP = 64 * 1024;

    private byte[] buf = new byte[256];
    private int pos;

    void reset() {
        if (buf.length > KEEP) {
            buf = new byte[256];
        }
        pos = 0;
    }

    byte[] array() {
        return buf;
    }

    int length() {
        return pos;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    private void ensure(int more) {
        if (pos + more > buf.length) {
            int size = Math.max(buf.length * 2, pos + more);
            if (size < 0) {
                throw new IllegalStateException("a protobuf message over 2 GiB cannot be written");
            }
            buf = Arrays.copyOf(buf, size);
        }
    }

    void tag(int number, int wireType) {
        int tag = (number << 3) | wireType;
        if (tag < 0) {
            varint(tag & 0xFFFFFFFFL); // numbers from 2^28: the tag is an unsigned 32-bit value
        } else {
            varint32(tag);
        }
    }

    void varint32(int v) {
        if (v < 0) {
            varint(v); // negative int32 travels as ten bytes, sign-extended (the protobuf rule)
            return;
        }
        ensure(5);
        while ((v & ~0x7F) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    void varint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    void fixed32(int v) {
        ensure(4);
        buf[pos++] = (byte) v;
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 24);
    }

    void fixed64(long v) {
        fixed32((int) v);
        fixed32((int) (v >>> 32));
    }

    void bytes(byte[] b) {
        varint32(b.length);
        raw(b, 0, b.length);
    }

    void raw(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    /** A string as its UTF-8 length and bytes, encoded in place (no intermediate array). */
    void string(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                bytes = utf8Length(s, i);
                break;
            }
        }
        if (bytes < 0) { // an unpaired surrogate: let the JDK replace it, as getBytes does
            bytes(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        varint32(bytes);
        ensure(bytes);
        if (bytes == n) {
            for (int i = 0; i < n; i++) {
                buf[pos++] = (byte) s.charAt(i);
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf[pos++] = (byte) c;
            } else if (c < 0x800) {
                buf[pos++] = (byte) (0xC0 | (c >>> 6));
                buf[pos++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c)) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf[pos++] = (byte) (0xF0 | (cp >>> 18));
                buf[pos++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
                buf[pos++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
                buf[pos++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                buf[pos++] = (byte) (0xE0 | (c >>> 12));
                buf[pos++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
                buf[pos++] = (byte) (0x80 | (c & 0x3F));
            }
        }
    }

    /** UTF-8 bytes of {@code s}, whose first {@code from} chars are ASCII; -1 when a surrogate is unpaired. */
    private static int utf8Length(String s, int from) {
        int bytes = from;
        int n = s.length();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= n || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return -1;
                }
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** Starts a length-delimited value; pass what it returns to {@link #endLen}. */
    int beginLen() {
        ensure(1);
        return pos++;
    }

    void endLen(int mark) {
        int len = pos - mark - 1;
        int size = varintSize(len);
        if (size > 1) {
            ensure(size - 1);
            System.arraycopy(buf, mark + 1, buf, mark + size, len);
            pos += size - 1;
        }
        int at = mark;
        int v = len;
        while ((v & ~0x7F) != 0) {
            buf[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[at] = (byte) v;
    }

    static int varintSize(int v) {
        return v < 0 ? 10 : v < 1 << 7 ? 1 : v < 1 << 14 ? 2 : v < 1 << 21 ? 3 : v < 1 << 28 ? 4 : 5;
    }
}
