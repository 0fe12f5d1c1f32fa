package io.xrpc.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongFunction;

/** Small, strict {@link Flow} publishers and subscribers for the stream tests: they produce only on demand. */
public final class Flows {
    private static final Executor PRODUCER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-producer");
        t.setDaemon(true);
        return t;
    });

    private Flows() {}

    /**
     * Items {@code item(0..count-1)} ({@code count} < 0: without end), each produced only when
     * requested, on a thread of its own; {@code produced} counts them.
     */
    public static <T> Flow.Publisher<T> range(long count, LongFunction<T> item, AtomicLong produced) {
        return subscriber -> {
            AtomicLong demand = new AtomicLong();
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicInteger wip = new AtomicInteger();
            long[] next = {0};
            Runnable drain = new Runnable() {
                @Override
                public void run() {
                    int missed = 1;
                    do {
                        while (!cancelled.get() && demand.get() > 0 && (count < 0 || next[0] < count)) {
                            demand.decrementAndGet();
                            produced.incrementAndGet();
                            subscriber.onNext(item.apply(next[0]++));
                        }
                        if (!cancelled.get() && count >= 0 && next[0] >= count) {
                            cancelled.set(true);
                            subscriber.onComplete();
                        }
                        missed = wip.addAndGet(-missed);
                    } while (missed != 0);
                }
            };
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                    demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
                    if (wip.getAndIncrement() == 0) {
                        PRODUCER.execute(drain);
                    }
                }

                @Override
                public void cancel() {
                    cancelled.set(true);
                }
            });
            if (count == 0 && wip.getAndIncrement() == 0) {
                PRODUCER.execute(drain);
            }
        };
    }

    /** Items of {@code source}, each through {@code f}; requests and cancel pass straight through. */
    public static <T, R> Flow.Publisher<R> map(Flow.Publisher<T> source, Function<T, R> f) {
        return subscriber -> source.subscribe(new Flow.Subscriber<T>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscriber.onSubscribe(s);
            }

            @Override
            public void onNext(T item) {
                subscriber.onNext(f.apply(item));
            }

            @Override
            public void onError(Throwable t) {
                subscriber.onError(t);
            }

            @Override
            public void onComplete() {
                subscriber.onComplete();
            }
        });
    }

    /** {@code source}, running {@code onCancel} when its subscriber cancels. */
    public static <T> Flow.Publisher<T> onCancel(Flow.Publisher<T> source, Runnable onCancel) {
        return subscriber -> source.subscribe(new Flow.Subscriber<T>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscriber.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {
                        s.request(n);
                    }

                    @Override
                    public void cancel() {
                        onCancel.run();
                        s.cancel();
                    }
                });
            }

            @Override
            public void onNext(T item) {
                subscriber.onNext(item);
            }

            @Override
            public void onError(Throwable t) {
                subscriber.onError(t);
            }

            @Override
            public void onComplete() {
                subscriber.onComplete();
            }
        });
    }

    /** {@code count} items then {@code failure}. */
    public static <T> Flow.Publisher<T> failing(long count, LongFunction<T> item, RuntimeException failure) {
        return subscriber -> range(count, item, new AtomicLong()).subscribe(new Flow.Subscriber<T>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscriber.onSubscribe(s);
            }

            @Override
            public void onNext(T t) {
                subscriber.onNext(t);
            }

            @Override
            public void onError(Throwable t) {
                subscriber.onError(t);
            }

            @Override
            public void onComplete() {
                subscriber.onError(failure);
            }
        });
    }

    /** A subscriber that records what it gets and requests only as told. */
    public static final class Recorder<T> implements Flow.Subscriber<T> {
        public final List<T> items = Collections.synchronizedList(new ArrayList<>());
        public final AtomicReference<Throwable> error = new AtomicReference<>();
        public final CountDownLatch done = new CountDownLatch(1);
        public final AtomicInteger terminals = new AtomicInteger();
        private volatile Flow.Subscription subscription;
        private final long initial;

        /** @param initial requested as it subscribes; {@code Long.MAX_VALUE} for everything */
        public Recorder(long initial) {
            this.initial = initial;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (initial > 0) {
                s.request(initial);
            }
        }

        @Override
        public void onNext(T item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            error.set(t);
            terminals.incrementAndGet();
            done.countDown();
        }

        @Override
        public void onComplete() {
            terminals.incrementAndGet();
            done.countDown();
        }

        public void request(long n) {
            subscription.request(n);
        }

        public void cancel() {
            subscription.cancel();
        }

        /** Waits for the end, at most {@code seconds}; whether it came. */
        public boolean await(long seconds) throws InterruptedException {
            return done.await(seconds, TimeUnit.SECONDS);
        }
    }
}
