package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.ReferenceView;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CallLoad;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.ForkedProvider;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A provider frozen with SIGSTOP, in a JVM of its own: its connections stay open and the kernel
 * keeps accepting requests for it, which it reads only when it thaws.
 */
class FrozenProviderTest {

    @Test
    @Timeout(120)
    void requestsThatWaitedInTheSocketPastTheirBudgetDoNotRunWhenTheProviderThaws() throws Exception {
        // One call thread: a stale request that wrongly ran would run before the count is read.
        try (ForkedJvm provider = new ForkedJvm(ForkedProvider.class, "frozen", "serial");
                RpcClient client = RpcClient.builder().build()) {
            GateService patient = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + provider.port())
                            .timeout(Duration.ofSeconds(10))
                            .build());
            for (int i = 0; i < 5; i++) { // a fresh JVM's first calls may take more than 500 ms
                assertThat(patient.whoAmI()).isEqualTo("frozen");
            }
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + provider.port())
                            .timeout(Duration.ofMillis(500))
                            .retries(0)
                            .build());
            provider.freeze();
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                List<CompletableFuture<String>> stale = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    stale.add(CompletableFuture.supplyAsync(s::whoAmI, callers));
                }
                for (CompletableFuture<String> f : stale) {
                    // Its deadline, or the unanswered ping (about 0.5 s) that fails the calls of a silent provider.
                    assertThat(f)
                            .failsWithin(Duration.ofSeconds(10))
                            .withThrowableOfType(ExecutionException.class)
                            .havingCause()
                            .isInstanceOfSatisfying(
                                    RpcException.class,
                                    e -> assertThat(e.status())
                                            .isIn(RpcStatus.DEADLINE_EXCEEDED, RpcStatus.CONNECTION_CLOSED));
                }
            } finally {
                callers.shutdownNow();
            }
            provider.thaw();
            // The provider reads the 8 requests only now, long after their 500 ms budget: none runs.
            // They are ahead of this call on the connection and on the one call thread.
            // Waits for the first answer after the thaw (calls may fail while the provider wakes).
            int ran = await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> patient.runs("whoAmI"), n -> true);
            assertThat(ran).as("calls that ran on the provider").isEqualTo(5);
        }
    }

    private static int timeoutsOn(CallLoad load, String provider) {
        return load.errors().entrySet().stream()
                .filter(e -> e.getKey().contains(provider))
                .mapToInt(e -> e.getValue().get())
                .sum();
    }

    @Test
    @Timeout(120)
    void aFrozenProviderIsSetAsideAfterItsFirstTimeoutsAndCallsGoToTheOther() throws Exception {
        GateServiceImpl a = new GateServiceImpl("a");
        try (ForkedJvm b = new ForkedJvm(ForkedProvider.class, "b");
                RpcServer pa = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, a)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(pa.endpoint())
                            .address("127.0.0.1:" + b.port())
                            .loadBalancer("round-robin")
                            .timeout(Duration.ofMillis(300))
                            .retries(0)
                            .build());
            CallLoad load = new CallLoad(8, s::whoAmI);
            String onB = "127.0.0.1:" + b.port(); // timed out, or failed when b answered no ping
            int failedBefore;
            try (load) {
                load.awaitMore("b", 20, Duration.ofSeconds(30));
                // A cold test JVM may miss the 300 ms deadline of its first calls to a, which then
                // sits out its first ejection: b must be the only provider that is set aside.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> client.references().get(0).providers().stream()
                                .noneMatch(p -> p.state() == ReferenceView.State.SET_ASIDE));
                load.awaitMore("a", 20, Duration.ofSeconds(30)); // a is through its probation
                failedBefore = timeoutsOn(load, onB);
                b.freeze();
                // Every caller gets stuck on b once, then b is set aside: a answers everything.
                load.awaitMore("a", 600, Duration.ofSeconds(60));
            }
            // Only b's timeouts after the freeze: a slow moment of the loaded test machine is not b.
            int failed = timeoutsOn(load, onB) - failedBefore;
            System.out.printf(
                    "frozen provider: %d calls answered by a in all, %d timed out on b%n", load.answered("a"), failed);
            assertThat(failed).as("calls that timed out on the frozen provider").isLessThanOrEqualTo(2 * 8);
            assertThat(load.errors().keySet())
                    .allMatch(e -> e.startsWith("DEADLINE_EXCEEDED")
                            || e.startsWith("CONNECTION_CLOSED") && e.contains("not even a ping"));
            b.thaw();
        }
    }
}
