package io.xrpc.examples;

import io.xrpc.examples.consumer.ConsumerApplication;
import io.xrpc.examples.consumer.OrderDesk;
import io.xrpc.examples.provider.ProviderApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo README's first command runs: an embedded ZooKeeper, the provider application and the
 * consumer application in one JVM, all on 127.0.0.1. The consumer calls the provider through all
 * three serializers with and without gzip and prints what each call returned and how long it
 * took. Exits 0 when every call behaved, 1 otherwise.
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) {
        System.exit(run() ? 0 : 1);
    }

    public static boolean run() {
        // embedded takes no credentials (any local process could serve its port): the yml's identity is cleared.
        String[] common = {
            "--xrpc.registry.address=embedded",
            "--xrpc.registry.username=",
            "--xrpc.registry.password=",
            "--xrpc.server.host=127.0.0.1",
            "--xrpc.server.port=0",
            "--spring.main.banner-mode=off"
        };
        boolean ok;
        try (ConfigurableApplicationContext provider = ProviderApplication.app().run(common);
                ConfigurableApplicationContext consumer =
                        ConsumerApplication.app().run(common)) {
            System.out.println("provider and consumer started on an embedded ZooKeeper");
            ok = consumer.getBean(OrderDesk.class).run();
        }
        System.out.println(ok ? "demo finished: every call behaved" : "demo FAILED");
        return ok;
    }
}
