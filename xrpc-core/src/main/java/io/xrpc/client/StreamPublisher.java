package io.xrpc.client;

import io.xrpc.common.Invocation;
import io.xrpc.common.ServiceKey;
import io.xrpc.internal.Futures;
import io.xrpc.internal.Invocations;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The stream a provider sends, as a proxy's method returns it ({@code Flow.Publisher<T>}): cold,
 * each subscriber its own call, made when it subscribes (so a stream is placed by the balancer when
 * it is read, not when the method is called). The subscriber gets its subscription at once; its
 * requests are held until the provider accepted the stream, then become credit on the wire. A
 * call that fails before the provider accepted it (no provider, refused, the deadline) fails the
 * subscriber with that call's exception.
 */
final class StreamPublisher implements Flow.Publisher<Object> {
    /** Makes the call of a method with an invocation: the proxy's call path, or generic invocation's. */
    @FunctionalInterface
    interface Caller {
        CompletableFuture<Object> call(ClientMethod method, Invocation invocation);
    }

    private final Caller path;
    private final ClientMethod method;
    private final ServiceKey key;
    private final Object[] arguments;
    private final String serializer;

    StreamPublisher(Caller path, ClientMethod method, ServiceKey key, Object[] arguments, String serializer) {
        this.path = path;
        this.method = method;
        this.key = key;
        this.arguments = arguments;
        this.serializer = serializer;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Object> subscriber) {
        Relay relay = new Relay(Objects.requireNonNull(subscriber, "subscriber"));
        subscriber.onSubscribe(relay);
        if (relay.isCancelled()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(method.timeoutMillis());
        Invocation inv = new Invocation(key, method.descriptor(), arguments, null, null, deadline);
        Invocations.serializer(inv, serializer);
        Invocations.responses(inv, relay);
        CompletableFuture<Object> call = path.call(method, inv);
        relay.call(call);
        call.whenComplete((v, t) -> relay.callEnded(t == null ? null : CallPath.declaredOr(Futures.cause(t))));
    }

    /**
     * Between the caller's subscriber and the call's messages: the subscription the subscriber holds
     * from the start, which passes its requests and its cancel on once the provider accepted the
     * stream (the transport subscribes this then), and the call's own end before that.
     */
    private static final class Relay implements Flow.Subscriber<Object>, Flow.Subscription {
        private final Flow.Subscriber<? super Object> downstream;
        private Flow.Subscription upstream; // guarded by this
        private long demand; // guarded by this, until upstream is set
        private boolean cancelled; // guarded by this
        private CompletableFuture<Object> call; // guarded by this
        private volatile boolean terminated;

        Relay(Flow.Subscriber<? super Object> downstream) {
            this.downstream = downstream;
        }

        synchronized boolean isCancelled() {
            return cancelled;
        }

        void call(CompletableFuture<Object> f) {
            boolean cancel;
            synchronized (this) {
                call = f;
                cancel = cancelled && upstream == null;
            }
            if (cancel) {
                f.cancel(false);
            }
        }

        /** The call ended: told to the subscriber here only when the stream never started. */
        void callEnded(Throwable failure) {
            synchronized (this) {
                if (upstream != null || cancelled) {
                    return; // the stream tells its subscriber its end itself
                }
            }
            if (failure != null) {
                onError(failure);
            } else {
                onComplete(); // ended without a stream: nothing was sent
            }
        }

        @Override
        public void request(long n) {
            Flow.Subscription up;
            synchronized (this) {
                up = upstream;
                if (up == null) {
                    if (n <= 0) {
                        cancelled = true;
                    } else {
                        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                        return;
                    }
                }
            }
            if (up != null) {
                up.request(n);
            } else {
                CompletableFuture<Object> f;
                synchronized (this) {
                    f = call;
                }
                if (f != null) {
                    f.cancel(false);
                }
                onError(new IllegalArgumentException(
                        "request(" + n + ") (expected: > 0, rule 3.9 of Reactive Streams)"));
            }
        }

        @Override
        public void cancel() {
            Flow.Subscription up;
            CompletableFuture<Object> f;
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                cancelled = true;
                up = upstream;
                f = call;
            }
            if (up != null) {
                up.cancel();
            } else if (f != null) {
                f.cancel(false); // not sent yet, or not accepted: the call ends, a CANCEL tells the provider
            }
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            long d;
            boolean cancel;
            synchronized (this) {
                if (upstream != null) {
                    s.cancel();
                    return;
                }
                upstream = s;
                d = demand;
                cancel = cancelled;
            }
            if (cancel) {
                s.cancel();
            } else if (d > 0) {
                s.request(d);
            }
        }

        @Override
        public void onNext(Object item) {
            if (!terminated) {
                downstream.onNext(item);
            }
        }

        @Override
        public void onError(Throwable failure) {
            if (!terminated) {
                terminated = true;
                downstream.onError(failure);
            }
        }

        @Override
        public void onComplete() {
            if (!terminated) {
                terminated = true;
                downstream.onComplete();
            }
        }
    }
}
