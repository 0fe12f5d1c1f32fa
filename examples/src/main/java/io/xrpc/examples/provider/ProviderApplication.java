package io.xrpc.examples.provider;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The provider: exports {@link OrderServiceImpl} and registers it. Reads {@code provider.yml}.
 * Runs until stopped (Ctrl-C closes it gracefully: unregister, drain, close).
 */
@SpringBootApplication
public class ProviderApplication {

    public static void main(String[] args) {
        app().run(args);
    }

    public static SpringApplicationBuilder app() {
        return new SpringApplicationBuilder(ProviderApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.config.name=provider");
    }
}
