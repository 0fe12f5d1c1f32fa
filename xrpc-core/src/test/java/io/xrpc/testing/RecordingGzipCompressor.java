package io.xrpc.testing;

import io.xrpc.compress.Compressor;
import io.xrpc.compress.GzipCompressor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** gzip under another name and id, recording the thread of every decompression. */
public final class RecordingGzipCompressor implements Compressor {
    public static final Queue<String> DECOMPRESSED_ON = new ConcurrentLinkedQueue<>();
    private final GzipCompressor gzip = new GzipCompressor();

    @Override
    public String name() {
        return "recording-gzip";
    }

    @Override
    public byte id() {
        return 42;
    }

    @Override
    public OutputStream compress(OutputStream out) throws IOException {
        return gzip.compress(out);
    }

    @Override
    public InputStream decompress(InputStream in) throws IOException {
        DECOMPRESSED_ON.add(Thread.currentThread().getName());
        return gzip.decompress(in);
    }
}
