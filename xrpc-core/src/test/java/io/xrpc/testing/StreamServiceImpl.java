package io.xrpc.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/** {@link StreamService}, counting what its endless feed produced and what its uploads read. */
public final class StreamServiceImpl implements StreamService {
    /** Ticks the endless feeds produced, over all calls. */
    public final AtomicLong produced = new AtomicLong();
    /** Endless feeds cancelled, over all calls. */
    public final AtomicLong cancelledFeeds = new AtomicLong();
    /** Blobs the blob feeds produced, over all calls. */
    public final AtomicLong blobsProduced = new AtomicLong();
    /** Calls of {@link #hold}. */
    public final AtomicLong held = new AtomicLong();

    @Override
    public Flow.Publisher<Tick> ticks(String symbol, int count) {
        return Flows.range(count, i -> new Tick(symbol, i, 100 + i / 100.0), new AtomicLong());
    }

    @Override
    public Flow.Publisher<Tick> endless(String symbol) {
        return Flows.onCancel(Flows.range(-1, i -> new Tick(symbol, i, i), produced), cancelledFeeds::incrementAndGet);
    }

    @Override
    public Flow.Publisher<Tick> failing(int count, String why) {
        return Flows.failing(count, i -> new Tick("F", i, i), new IllegalStateException(why));
    }

    @Override
    public Flow.Publisher<byte[]> blobs(int size) {
        return Flows.onCancel(Flows.range(-1, i -> new byte[size], blobsProduced), cancelledFeeds::incrementAndGet);
    }

    @Override
    public Flow.Publisher<Tick> rude(int count) {
        return s -> {
            s.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {
                    cancelledFeeds.incrementAndGet();
                }
            });
            for (int i = 0; i < count; i++) {
                s.onNext(new Tick("R", i, i));
            }
            s.onComplete();
        };
    }

    @Override
    public CompletableFuture<Summary> upload(Flow.Publisher<Chunk> chunks) {
        CompletableFuture<Summary> result = new CompletableFuture<>();
        chunks.subscribe(new Flow.Subscriber<Chunk>() {
            final List<Integer> indexes = new ArrayList<>();
            long bytes;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Chunk c) {
                indexes.add(c.index());
                bytes += c.data().length;
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                result.complete(new Summary(indexes.size(), bytes, indexes));
            }
        });
        return result;
    }

    @Override
    public Flow.Publisher<String> echo(Flow.Publisher<String> messages) {
        return Flows.map(messages, m -> m.toUpperCase(Locale.ROOT));
    }

    @Override
    public CompletableFuture<List<String>> firstOf(Flow.Publisher<String> messages, int n) {
        CompletableFuture<List<String>> result = new CompletableFuture<>();
        messages.subscribe(new Flow.Subscriber<String>() {
            final List<String> read = new ArrayList<>();
            Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(n);
            }

            @Override
            public void onNext(String m) {
                read.add(m);
                if (read.size() == n) {
                    subscription.cancel();
                    result.complete(read);
                }
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                result.complete(read);
            }
        });
        return result;
    }

    @Override
    public CompletableFuture<String> hold(Flow.Publisher<String> messages) {
        held.incrementAndGet();
        return new CompletableFuture<>();
    }

    @Override
    public String ping(String s) {
        return "pong " + s;
    }
}
