package io.xrpc.benchmark.streams;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** The stream benchmark's service: one method per stream shape, with small messages. */
public interface StreamBenchService {
    /**
     * One price tick: what a feed sends many of. {@code sentNanos} is the provider's
     * {@link System#nanoTime()} as it made the tick (on Linux the same clock in every process of
     * the machine), so the caller can tell how long each took to arrive.
     */
    record Tick(long seq, long sentNanos, String symbol, double price) {}

    /** A part of an upload. */
    record Chunk(int index, byte[] data) {}

    /** {@code count} ticks, made as they are asked for. */
    Flow.Publisher<Tick> ticks(int count);

    /** Reads every chunk; answers with how many bytes came. */
    CompletableFuture<Long> upload(Flow.Publisher<Chunk> chunks);

    /** Each tick back as it comes. */
    Flow.Publisher<Tick> echo(Flow.Publisher<Tick> ticks);
}
