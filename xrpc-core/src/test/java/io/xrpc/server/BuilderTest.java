package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.config.TlsConfig;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;
import io.xrpc.serialize.json.JsonSerializerProvider;
import io.xrpc.testing.CapturedErr;
import io.xrpc.testing.ForwardingSerializer;
import io.xrpc.testing.JacksonSerializerProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** A builder's build() freezes its settings: what is built shares nothing mutable with it or its siblings. */
class BuilderTest {
    @Test
    void serversBuiltFromOneBuilderHaveAllowListsOfTheirOwn() {
        RpcServer.Builder b = RpcServer.builder().host("127.0.0.1");
        RpcServer first = b.build();
        RpcServer second = b.build();
        try {
            first.allowList().allowClassName("com.acme.OnlyFirst");
            b.allowPackage("com.acme.later");
            // Before: both servers and the builder shared one list.
            assertThat(second.allowList().isAllowed("com.acme.OnlyFirst")).isFalse();
            assertThat(first.allowList().isAllowed("com.acme.later.X")).isFalse();
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void clientsBuiltFromOneBuilderHaveAllowListsOfTheirOwn() {
        RpcClient.Builder b = RpcClient.builder();
        try (RpcClient first = b.build();
                RpcClient second = b.build()) {
            first.allowList().allowClassName("com.acme.OnlyFirst");
            assertThat(second.allowList().isAllowed("com.acme.OnlyFirst")).isFalse();
        }
    }

    /** The shared builder base knows which side it builds: each refuses the other side's TLS, naming it. */
    @Test
    void eachSideRefusesTheOtherSidesTls() throws Exception {
        TlsConfig client = TlsConfig.client().build();
        TlsConfig server = TlsConfig.server(KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm()))
                .build();
        assertThatThrownBy(() -> RpcServer.builder().tls(client))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls: a client's configuration (expected: TlsConfig.server(keys))");
        assertThatThrownBy(() -> RpcClient.builder().tls(server))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls: a server's configuration (expected: TlsConfig.client())");
        // and each takes its own, chaining as its own builder
        assertThat(RpcServer.builder().tls(server).host("127.0.0.1")).isInstanceOf(RpcServer.Builder.class);
        assertThat(RpcClient.builder().tls(client).timeout(Duration.ofSeconds(1)))
                .isInstanceOf(RpcClient.Builder.class);
    }

    /** An application's serializer that takes the built-in json's name, at a priority given by the test. */
    public static final class ImpostorJson implements SerializerProvider {
        static volatile int priority;

        @Override
        public String name() {
            return "json";
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public Serializer create(ClassAllowList allowList, ReadLimits limits) {
            Serializer jackson = new JacksonSerializerProvider().create(allowList, limits);
            return new ForwardingSerializer("json", (byte) 5, jackson); // the built-in's id, which it replaces
        }
    }

    public interface Echo {
        String echo(String s);
    }

    /** Runs {@code body} with {@link ImpostorJson} on the class path, as an application's jar would put it. */
    private static void withImpostor(Path dir, Executable body) throws Throwable {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(SerializerProvider.class.getName()), ImpostorJson.class.getName() + "\n");
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {dir.toUri().toURL()}, BuilderTest.class.getClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            body.execute();
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }

    /**
     * Before: an application's serializer named json silently lost to the built-in one (or won, as
     * the class path's order had it): a new user's custom serializer never ran.
     */
    @Test
    void twoSerializersOfOneNameAndPriorityStopStartUpNamingBoth(@TempDir Path dir) throws Throwable {
        withImpostor(dir, () -> {
            ImpostorJson.priority = 0;
            assertThatThrownBy(() -> RpcServer.builder()
                            .host("127.0.0.1")
                            .port(0)
                            .service(Echo.class, s -> s)
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("serializer 'json' is provided by both")
                    .hasMessageContaining(ImpostorJson.class.getName())
                    .hasMessageContaining(JsonSerializerProvider.class.getName())
                    .hasMessageContaining("priority()");
            assertThatThrownBy(() -> RpcClient.builder().build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("serializer 'json' is provided by both");
        });
    }

    @Test
    void aHigherPriorityReplacesABuiltInAndSaysSo(@TempDir Path dir) throws Throwable {
        withImpostor(dir, () -> {
            ImpostorJson.priority = 10;
            String log;
            try (CapturedErr err = new CapturedErr();
                    RpcServer server = RpcServer.builder()
                            .host("127.0.0.1")
                            .port(0)
                            .service(Echo.class, s -> s)
                            .build()) {
                log = err.text();
            }
            assertThat(log)
                    .contains("serializer 'json': " + ImpostorJson.class.getName())
                    .contains("is used in place of " + JsonSerializerProvider.class.getName());
        });
    }
}
