package io.xrpc.benchmark.streams;

import io.xrpc.stream.Streams;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/** The provider's side: ticks made on demand, uploads counted, echoes passed through. */
public final class StreamBenchServiceImpl implements StreamBenchService {
    /** Ticks made, over all calls: what an idle consumer lets a provider make. */
    public final AtomicLong made = new AtomicLong();

    @Override
    public Flow.Publisher<Tick> ticks(int count) {
        return Streams.fromIterable(() -> new Iterator<Tick>() {
            long next;

            @Override
            public boolean hasNext() {
                return count < 0 || next < count;
            }

            @Override
            public Tick next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                made.incrementAndGet();
                long i = next++;
                return new Tick(i, System.nanoTime(), "ACME", 100 + (i & 1023) / 100.0);
            }
        });
    }

    @Override
    public CompletableFuture<Long> upload(Flow.Publisher<Chunk> chunks) {
        AtomicLong bytes = new AtomicLong();
        return Streams.forEach(chunks, c -> bytes.addAndGet(c.data().length)).thenApply(v -> bytes.get());
    }

    @Override
    public Flow.Publisher<Tick> echo(Flow.Publisher<Tick> ticks) {
        return ticks;
    }
}
