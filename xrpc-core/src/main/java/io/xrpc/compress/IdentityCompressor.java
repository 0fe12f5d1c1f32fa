package io.xrpc.compress;

import java.io.InputStream;
import java.io.OutputStream;

/** {@code none}: bodies travel as they are. */
public final class IdentityCompressor implements Compressor {
    public static final byte ID = 0;
    public static final IdentityCompressor INSTANCE = new IdentityCompressor();

    @Override
    public String name() {
        return "none";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public OutputStream compress(OutputStream out) {
        return out;
    }

    @Override
    public InputStream decompress(InputStream in) {
        return in;
    }
}
