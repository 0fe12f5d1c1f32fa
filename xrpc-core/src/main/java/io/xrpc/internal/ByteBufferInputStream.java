package io.xrpc.internal;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The bytes from a buffer's position to its limit as a stream whose {@link #available()} is
 * exactly what is left, as the serializer SPI promises. Reading moves the buffer's position.
 */
public final class ByteBufferInputStream extends InputStream {
    private final ByteBuffer buffer;

    public ByteBufferInputStream(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    @Override
    public int read() {
        return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        int n = Math.min(len, buffer.remaining());
        if (n == 0) {
            return -1;
        }
        buffer.get(b, off, n);
        return n;
    }

    @Override
    public long skip(long n) {
        int k = (int) Math.max(0, Math.min(n, buffer.remaining()));
        buffer.position(buffer.position() + k);
        return k;
    }

    @Override
    public int available() {
        return buffer.remaining();
    }
}
