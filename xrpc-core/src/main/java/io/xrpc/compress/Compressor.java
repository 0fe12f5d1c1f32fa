package io.xrpc.compress;

import io.xrpc.common.Extension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Compresses frame bodies; found with {@link java.util.ServiceLoader} under
 * {@code META-INF/services/io.xrpc.compress.Compressor} and chosen by {@link #name()}.
 *
 * <p>Implementations are stateless and thread-safe. The receiver bounds what decompression may
 * produce, so a small compressed body cannot expand into an {@link OutOfMemoryError}.
 */
public interface Compressor extends Extension {

    /** Stable lower-case name: {@code none}, {@code gzip}. */
    String name();

    /** Header byte id; 0 is reserved for {@code none}. */
    byte id();

    /** A stream that compresses into {@code out}; closing it finishes the compressed data but leaves {@code out} open. */
    OutputStream compress(OutputStream out) throws IOException;

    /** A stream that yields the decompressed bytes of {@code in}. */
    InputStream decompress(InputStream in) throws IOException;
}
