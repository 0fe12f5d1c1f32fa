package io.xrpc.testing;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** A service of every stream shape, for the stream tests. */
public interface StreamService {
    /** One tick of a price feed. */
    record Tick(String symbol, long seq, double price) {}

    /** A part of an upload. */
    record Chunk(int index, byte[] data) {}

    /** What an upload added up to. */
    record Summary(int chunks, long bytes, List<Integer> indexes) {}

    /** {@code count} ticks of {@code symbol}, then the end. */
    Flow.Publisher<Tick> ticks(String symbol, int count);

    /** Ticks without end, each produced only when asked for. */
    Flow.Publisher<Tick> endless(String symbol);

    /** {@code count} ticks, then the stream fails with an IllegalStateException naming {@code why}. */
    Flow.Publisher<Tick> failing(int count, String why);

    /** {@code count} ticks at once as it is subscribed, whatever was requested: a producer that breaks the rules. */
    Flow.Publisher<Tick> rude(int count);

    /** Blobs of {@code size} bytes without end, each produced only when asked for. */
    Flow.Publisher<byte[]> blobs(int size);

    /** Reads every chunk and says what they added up to. */
    CompletableFuture<Summary> upload(Flow.Publisher<Chunk> chunks);

    /** Each message back, upper-cased, as it comes. */
    Flow.Publisher<String> echo(Flow.Publisher<String> messages);

    /** Reads the first {@code n} messages, cancels the rest and answers with those it read. */
    CompletableFuture<List<String>> firstOf(Flow.Publisher<String> messages, int n);

    /** Never reads its messages and never answers: the caller is held at the provider's window. */
    CompletableFuture<String> hold(Flow.Publisher<String> messages);

    /** An ordinary call beside the streams. */
    String ping(String s);
}
