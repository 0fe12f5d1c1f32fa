package io.xrpc.spring;

import java.util.List;
import java.util.concurrent.CompletableFuture;

public interface Greeter {
    String hello(String name);

    CompletableFuture<String> helloAsync(String name);

    String fail(String why);

    String whoAmI();

    /** Holds its call thread {@code millis}, then names the provider. */
    String slow(int millis);

    /** Returns a list that holds itself, which kryo cannot write: the method runs, its result fails. */
    List<Object> unwritable();
}
