package io.xrpc.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** What a grpc-java call received: every message, then how it ended. */
final class Received<T> implements StreamObserver<T> {
    final List<T> messages = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> ended = new CompletableFuture<>();

    @Override
    public void onNext(T value) {
        messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
        ended.complete(Status.OK);
    }

    /** How the call ended, within 30 s. */
    Status await() {
        return ended.orTimeout(30, TimeUnit.SECONDS).join();
    }
}
