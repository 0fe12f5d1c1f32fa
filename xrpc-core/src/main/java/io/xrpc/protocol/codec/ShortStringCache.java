package io.xrpc.protocol.codec;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The service keys and method signatures a connection sent lately, so that a request naming the
 * same method as an earlier one costs a comparison of bytes instead of decoding two new strings
 * (a fifth of what a provider allocated per call before). A few entries, short strings only, and
 * replaced in turn: a peer naming ever new strings costs itself the decoding, and this cache no
 * more than {@value #ENTRIES} times {@value #MAX_LENGTH} bytes. Not thread-safe: one per connection,
 * used on its event loop.
 */
public final class ShortStringCache {
    static final int ENTRIES = 8;
    static final int MAX_LENGTH = 256;

    private final byte[][] bytes = new byte[ENTRIES][];
    private final String[] strings = new String[ENTRIES];
    private int next;

    /** Reads {@code n} UTF-8 bytes at the reader index as a string, the cached one when they match. */
    String read(ByteBuf buf, int n) {
        if (n > MAX_LENGTH) {
            return buf.readCharSequence(n, StandardCharsets.UTF_8).toString();
        }
        int at = buf.readerIndex();
        for (int i = 0; i < ENTRIES; i++) {
            byte[] b = bytes[i];
            if (b != null && b.length == n && matches(buf, at, b)) {
                buf.skipBytes(n);
                return strings[i];
            }
        }
        byte[] b = new byte[n];
        buf.readBytes(b);
        String s = new String(b, StandardCharsets.UTF_8);
        int slot = next;
        next = (slot + 1) % ENTRIES;
        bytes[slot] = b;
        strings[slot] = s;
        return s;
    }

    private static boolean matches(ByteBuf buf, int at, byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (buf.getByte(at + i) != b[i]) {
                return false;
            }
        }
        return true;
    }
}
