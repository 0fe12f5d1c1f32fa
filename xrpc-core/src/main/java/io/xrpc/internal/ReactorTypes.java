package io.xrpc.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactor's {@code Flux} and {@code Mono} to and from the JDK's types XRpc carries. Loaded only for
 * a method that declares them ({@link io.xrpc.common.MethodDescriptor#reactiveResult()},
 * {@link io.xrpc.common.MethodDescriptor#reactiveStream()}), so an application without Reactor
 * never needs it on its class path.
 */
public final class ReactorTypes {
    private ReactorTypes() {}

    /** A {@code Flux} (or any Reactive Streams publisher) as a {@code Flow.Publisher}; null stays null. */
    @SuppressWarnings("unchecked")
    public static Flow.Publisher<Object> toFlow(Object flux) {
        return flux == null ? null : JdkFlowAdapter.publisherToFlowPublisher((Publisher<Object>) flux);
    }

    /** A {@code Flow.Publisher} as a {@code Flux}; null stays null. */
    @SuppressWarnings("unchecked")
    public static Object toFlux(Flow.Publisher<?> publisher) {
        return publisher == null ? null : JdkFlowAdapter.flowPublisherToFlux((Flow.Publisher<Object>) publisher);
    }

    /**
     * A cold {@code Mono} of a call: {@code call} runs when it is subscribed, once per subscriber,
     * and cancelling the subscription cancels the call.
     */
    public static Object toMono(Supplier<CompletableFuture<Object>> call) {
        return Mono.fromFuture(call, false);
    }

    /** What a {@code Mono} (or a {@code Flux}'s last value) completes with, as a future; null completes with null. */
    @SuppressWarnings("unchecked")
    public static CompletableFuture<Object> toFuture(Object mono) {
        if (mono == null) {
            return CompletableFuture.completedFuture(null);
        }
        return mono instanceof Mono<?> m
                ? (CompletableFuture<Object>) m.toFuture()
                : ((Flux<Object>) mono).last().toFuture();
    }
}
