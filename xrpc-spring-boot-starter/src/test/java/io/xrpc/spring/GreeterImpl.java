package io.xrpc.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Value;

@RpcService
public class GreeterImpl implements Greeter {
    @Value("${test.provider-name:provider}")
    private String name;

    @Override
    public String hello(String who) {
        return "hello " + who;
    }

    @Override
    public CompletableFuture<String> helloAsync(String who) {
        return CompletableFuture.supplyAsync(() -> "async hello " + who);
    }

    @Override
    public String fail(String why) {
        throw new IllegalArgumentException(why);
    }

    @Override
    public List<Object> unwritable() {
        List<Object> self = new ArrayList<>();
        self.add(self);
        return self;
    }

    @Override
    public String slow(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return name;
    }

    @Override
    public String whoAmI() {
        return name;
    }
}
