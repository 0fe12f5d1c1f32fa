package io.xrpc.stream;

import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The few {@link Flow} pieces a stream method needs without a reactive library: a publisher of
 * what an {@link Iterable} or a {@link Stream} holds, produced only as its subscriber asks; a
 * blocking {@link Stream} over a publisher, for a caller that reads a server stream as gRPC's
 * blocking stubs do; {@link #map}; and {@link #forEach}. With Reactor on the classpath, a method may
 * use {@code Flux} and {@code Mono} instead (see the README).
 *
 * <pre>{@code
 * // provider
 * public Flow.Publisher<Tick> ticks(String symbol) {
 *     return Streams.fromStream(() -> feed.ticks(symbol));   // read as the caller asks
 * }
 * // caller
 * try (Stream<Tick> ticks = Streams.toStream(prices.ticks("ACME"))) {
 *     ticks.limit(10).forEach(System.out::println);         // closing cancels the rest
 * }
 * }</pre>
 */
public final class Streams {
    /** Items a blocking reader asks for ahead of what it has taken: what it holds at most. */
    static final int PREFETCH = 32;

    private Streams() {}

    /**
     * A cold publisher of what {@code items} holds, each subscriber from its start; an item is
     * taken from the iterator only when it is requested, on the thread that requested it.
     */
    public static <T> Flow.Publisher<T> fromIterable(Iterable<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return subscriber -> subscribeTo(subscriber, items::iterator, null);
    }

    /**
     * A cold publisher of the stream {@code source} makes for each subscriber, read only as its
     * subscriber asks and closed when it ends, fails or is cancelled (a stream over a file or a
     * database cursor is released then).
     */
    public static <T> Flow.Publisher<T> fromStream(Supplier<? extends Stream<? extends T>> source) {
        Objects.requireNonNull(source, "source");
        return subscriber -> {
            Stream<? extends T>[] opened = newStreamHolder();
            subscribeTo(
                    subscriber,
                    () -> {
                        opened[0] = source.get();
                        return opened[0].iterator();
                    },
                    () -> {
                        if (opened[0] != null) {
                            opened[0].close();
                        }
                    });
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> Stream<? extends T>[] newStreamHolder() {
        return (Stream<? extends T>[]) new Stream<?>[1];
    }

    private static <T> void subscribeTo(
            Flow.Subscriber<? super T> subscriber, Supplier<? extends Iterator<? extends T>> items, Runnable close) {
        Objects.requireNonNull(subscriber, "subscriber");
        subscriber.onSubscribe(new IteratorSubscription<>(subscriber, items, close));
    }

    /** Emits an iterator's items on demand; requests made inside onNext are looped, not recursed. */
    private static final class IteratorSubscription<T> implements Flow.Subscription {
        private final Flow.Subscriber<? super T> subscriber;
        private final Supplier<? extends Iterator<? extends T>> items;
        private final Runnable close;
        private final AtomicLong demand = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile boolean cancelled;
        private Iterator<? extends T> iterator; // emitting thread only

        IteratorSubscription(
                Flow.Subscriber<? super T> subscriber,
                Supplier<? extends Iterator<? extends T>> items,
                Runnable close) {
            this.subscriber = subscriber;
            this.items = items;
            this.close = close;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                cancel();
                subscriber.onError(new IllegalArgumentException(
                        "request(" + n + ") (expected: > 0, rule 3.9 of Reactive Streams)"));
                return;
            }
            demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                emit();
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }

        private void emit() {
            try {
                if (iterator == null && !cancelled) {
                    iterator = items.get();
                }
                while (!cancelled && demand.get() > 0) {
                    if (!iterator.hasNext()) {
                        cancelled = true;
                        closeOnce();
                        subscriber.onComplete();
                        return;
                    }
                    T item = iterator.next();
                    if (item == null) {
                        throw new NullPointerException("the iterator gave null (a stream carries no nulls)");
                    }
                    demand.decrementAndGet();
                    subscriber.onNext(item);
                }
            } catch (RuntimeException e) {
                if (!cancelled) {
                    cancelled = true;
                    closeOnce();
                    subscriber.onError(e);
                }
            }
        }

        @Override
        public void cancel() {
            cancelled = true;
            closeOnce();
        }

        private void closeOnce() {
            if (close != null && closed.compareAndSet(false, true)) {
                close.run();
            }
        }
    }

    /**
     * Each item of {@code source} through {@code f}, as it comes; requests and cancel pass straight
     * through, so it holds nothing. A function that throws ends the stream with what it threw.
     */
    public static <T, R> Flow.Publisher<R> map(Flow.Publisher<T> source, Function<? super T, ? extends R> f) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(f, "f");
        return subscriber -> source.subscribe(new Flow.Subscriber<T>() {
            private Flow.Subscription subscription;
            private boolean done;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                subscriber.onSubscribe(s);
            }

            @Override
            public void onNext(T item) {
                if (done) {
                    return;
                }
                R mapped;
                try {
                    mapped = Objects.requireNonNull(f.apply(item), "the function returned null");
                } catch (RuntimeException e) {
                    done = true;
                    subscription.cancel();
                    subscriber.onError(e);
                    return;
                }
                subscriber.onNext(mapped);
            }

            @Override
            public void onError(Throwable t) {
                if (!done) {
                    done = true;
                    subscriber.onError(t);
                }
            }

            @Override
            public void onComplete() {
                if (!done) {
                    done = true;
                    subscriber.onComplete();
                }
            }
        });
    }

    /**
     * {@code source}, with {@code action} run on each item as it passes (Reactor's
     * {@code doOnNext}): what an interceptor uses to see a stream's messages, by wrapping the
     * stream parameter or the result it passes on. An action that throws ends the stream with what it threw.
     */
    public static <T> Flow.Publisher<T> peek(Flow.Publisher<T> source, Consumer<? super T> action) {
        Objects.requireNonNull(action, "action");
        return map(source, item -> {
            action.accept(item);
            return item;
        });
    }

    /**
     * Runs {@code action} on each item as it comes, asking for {@value #PREFETCH} at a time; the
     * future completes when the stream ends (exceptionally with its failure). Cancelling the future
     * cancels the stream.
     */
    public static <T> CompletableFuture<Void> forEach(Flow.Publisher<T> source, Consumer<? super T> action) {
        Objects.requireNonNull(action, "action");
        CompletableFuture<Void> done = new CompletableFuture<>();
        source.subscribe(new Flow.Subscriber<T>() {
            private Flow.Subscription subscription;
            private int taken;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                done.whenComplete((v, t) -> {
                    if (done.isCancelled()) {
                        s.cancel();
                    }
                });
                s.request(PREFETCH);
            }

            @Override
            public void onNext(T item) {
                try {
                    action.accept(item);
                } catch (RuntimeException e) {
                    subscription.cancel();
                    done.completeExceptionally(e);
                    return;
                }
                if (++taken == PREFETCH / 2) {
                    taken = 0;
                    subscription.request(PREFETCH / 2);
                }
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(null);
            }
        });
        return done;
    }

    /**
     * The items of {@code source} as a blocking {@link Stream}, read as it is consumed, at most
     * {@value #PREFETCH} held ahead: a server stream read the way gRPC's blocking stubs read one.
     * A failure of the stream is thrown from the terminal operation (an {@link RpcException} as
     * it came; anything else wrapped in one). Close it (try-with-resources) to cancel what is left;
     * a stream read to its end needs no close. The call's deadline bounds every wait.
     */
    public static <T> Stream<T> toStream(Flow.Publisher<T> source) {
        BlockingReader<T> reader = new BlockingReader<>();
        source.subscribe(reader);
        return StreamSupport.stream(
                        Spliterators.spliteratorUnknownSize(reader, Spliterator.ORDERED | Spliterator.NONNULL), false)
                .onClose(reader::cancel);
    }

    /** A subscriber that hands its items to one reading thread, through a queue of {@value #PREFETCH}. */
    private static final class BlockingReader<T> implements Flow.Subscriber<T>, Iterator<T> {
        private static final Object COMPLETE = new Object();

        private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(PREFETCH + 1);
        private volatile Flow.Subscription subscription;
        private final CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
        private Object next; // reader only
        private int taken; // reader only
        private boolean over; // reader only

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            subscribed.complete(s);
            s.request(PREFETCH);
        }

        @Override
        public void onNext(T item) {
            queue.offer(item); // never full: at most PREFETCH requested and not taken
        }

        @Override
        public void onError(Throwable t) {
            queue.offer(new Failure(t));
        }

        @Override
        public void onComplete() {
            queue.offer(COMPLETE);
        }

        @Override
        public boolean hasNext() {
            if (next != null) {
                return true;
            }
            if (over) {
                return false;
            }
            Object o;
            try {
                o = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancel();
                throw new RpcException(
                        RpcStatus.CANCELLED, "interrupted while it waited for the stream's next message");
            }
            if (o == COMPLETE) {
                over = true;
                return false;
            }
            if (o instanceof Failure f) {
                over = true;
                throw f.cause instanceof RpcException r
                        ? r
                        : new RpcException(RpcStatus.CANCELLED, "the stream failed: " + f.cause, f.cause);
            }
            next = o;
            if (++taken == PREFETCH / 2) {
                taken = 0;
                subscription.request(PREFETCH / 2);
            }
            return true;
        }

        @Override
        @SuppressWarnings("unchecked")
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException("the stream ended");
            }
            Object o = next;
            next = null;
            return (T) o;
        }

        void cancel() {
            subscribed.thenAccept(Flow.Subscription::cancel);
        }

        /** A failure, queued after the items that came before it. */
        private record Failure(Throwable cause) {}
    }
}
