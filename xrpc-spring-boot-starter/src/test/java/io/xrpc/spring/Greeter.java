package io.xrpc.spring;

import java.util.concurrent.CompletableFuture;

public interface Greeter {
    String hello(String name);

    CompletableFuture<String> helloAsync(String name);

    String fail(String why);

    String whoAmI();

    /** Returns a list that holds itself, which kryo cannot write: the method runs, its result fails. */
    java.util.List<Object> unwritable();
}
