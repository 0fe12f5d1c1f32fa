package io.xrpc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import org.junit.jupiter.api.Test;

/** The quick start of README.md, line for line but on a free port, so the README stays true. */
class ReadmeQuickStartTest {
    public interface Greeter {
        String hello(String name);
    }

    @Test
    void quickStartWorksAsWritten() {
        RpcServer server = RpcServer.builder()
                .port(0)
                .service(Greeter.class, name -> "hello " + name)
                .build()
                .start();

        RpcClient client = RpcClient.builder().build();
        Greeter greeter = client.proxy(
                Greeter.class,
                ReferenceOptions.builder().address("127.0.0.1:" + server.port()).build());
        assertThat(greeter.hello("world")).isEqualTo("hello world");

        client.close();
        server.close();
    }
}
