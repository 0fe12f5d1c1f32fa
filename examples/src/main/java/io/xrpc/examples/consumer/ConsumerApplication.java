package io.xrpc.examples.consumer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The consumer: finds the provider in the registry, calls it through every serializer, prints
 * the results and exits (0 when every call behaved). Reads {@code consumer.yml}.
 */
@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        boolean ok;
        try (ConfigurableApplicationContext context = app().run(args)) {
            ok = context.getBean(OrderDesk.class).run();
        }
        System.exit(ok ? 0 : 1);
    }

    public static SpringApplicationBuilder app() {
        return new SpringApplicationBuilder(ConsumerApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.config.name=consumer");
    }
}
