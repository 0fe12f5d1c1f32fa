package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.testing.Canary;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Call credentials on the client, an authenticator on the server that refuses before reading arguments. */
class AuthenticationTest {
    static RpcServer server;
    static final List<String> checked = new CopyOnWriteArrayList<>();
    static final List<String> intercepted = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .authenticator((credentials, service, method, peer) -> {
                    checked.add(credentials + " " + method.name());
                    return "Bearer good".equals(credentials) ? null : "a valid bearer token is required";
                })
                .interceptor((inv, next) -> {
                    intercepted.add(inv.attachments().get(Invocation.CREDENTIALS));
                    return next.proceed(inv);
                })
                .service(GateService.class, new GateServiceImpl("guarded"))
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static GateService proxy(RpcClient client) {
        return client.proxy(
                GateService.class,
                ReferenceOptions.builder().address(server.endpoint()).retries(2).build());
    }

    @Test
    void aCallWithGoodCredentialsRunsAndTheSupplierIsAskedPerCall() {
        AtomicInteger asked = new AtomicInteger();
        try (RpcClient client = RpcClient.builder()
                .credentialsOverPlaintext(true)
                .credentials(inv -> {
                    asked.incrementAndGet();
                    return "Bearer good";
                })
                .build()) {
            GateService gate = proxy(client);
            int before = intercepted.size();
            assertThat(gate.quick("a")).isEqualTo("a");
            assertThat(gate.quick("b")).isEqualTo("b");
            assertThat(asked).hasValue(2);
            assertThat(intercepted.subList(before, intercepted.size()))
                    .as("server interceptors see them")
                    .containsExactly("Bearer good", "Bearer good");
        }
    }

    @Test
    void aCallWithoutGoodCredentialsIsRefusedBeforeItsArgumentsAreRead() {
        try (RpcClient none = RpcClient.builder().build();
                RpcClient wrong = RpcClient.builder()
                        .credentialsOverPlaintext(true)
                        .credentials(inv -> "Bearer stolen")
                        .build()) {
            Canary sent = new Canary();
            int created = Canary.CREATED.get();
            int before = checked.size();
            int interceptedBefore = intercepted.size();
            // A Canary is outside the allow-list: had the arguments been read, this would be a
            // SERIALIZATION_ERROR naming it.
            assertThatThrownBy(() -> proxy(none).describe(sent)).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                assertThat(e.isSafeToRetry()).isFalse();
                assertThat(e.getMessage()).contains("a valid bearer token is required");
            });
            assertThatThrownBy(() -> proxy(wrong).quick("x"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            assertThat(checked.subList(before, checked.size()))
                    .as("asked once per call: not retried")
                    .containsExactly("null describe", "Bearer stolen quick");
            assertThat(intercepted).as("refused calls reach no interceptor").hasSize(interceptedBefore);
            assertThat(Canary.CREATED.get() - created).isZero();
        }
    }

    @Test
    void credentialsThatFailFailTheCallWithoutSendingIt() {
        int before = checked.size();
        try (RpcClient client = RpcClient.builder()
                .credentialsOverPlaintext(true)
                .credentials(inv -> {
                    throw new IllegalStateException("token endpoint down");
                })
                .build()) {
            assertThatThrownBy(() -> proxy(client).quick("x")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                assertThat(e.getMessage()).contains("token endpoint down");
            });
        }
        assertThat(checked).hasSize(before);
    }
}
