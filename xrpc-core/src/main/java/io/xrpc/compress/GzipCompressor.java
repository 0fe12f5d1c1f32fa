package io.xrpc.compress;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** {@code gzip} (RFC 1952) through {@link java.util.zip}. */
public final class GzipCompressor implements Compressor {
    public static final byte ID = 1;

    @Override
    public String name() {
        return "gzip";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public OutputStream compress(OutputStream out) throws IOException {
        return new GZIPOutputStream(
                new FilterOutputStream(out) {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        out.write(b, off, len);
                    }

                    @Override
                    public void close() throws IOException {
                        // GZIPOutputStream.close() must release its Deflater but not close the frame buffer.
                        flush();
                    }
                },
                4096);
    }

    @Override
    public InputStream decompress(InputStream in) throws IOException {
        return new GZIPInputStream(in, 4096);
    }
}
