package io.xrpc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.ClientInterceptor;
import io.xrpc.client.RpcClient;
import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CallLoad;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.TypesService;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Cluster strategies over direct addresses; the registry module repeats failover through ZooKeeper. */
class ClusterTest {

    private static RpcServer provider(GateServiceImpl impl) {
        return RpcServer.builder()
                .host("127.0.0.1")
                .service(GateService.class, impl)
                .build()
                .start();
    }

    private static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort(); // closed again: connecting to it is refused
        }
    }

    @Test
    void failoverLosesNoCallWhenOneOfTwoProvidersStopsUnderLoad() throws Exception {
        GateServiceImpl a = new GateServiceImpl("a");
        GateServiceImpl b = new GateServiceImpl("b");
        a.gate.countDown();
        b.gate.countDown();
        RpcServer pa = provider(a);
        try (RpcServer pb = provider(b);
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(pa.endpoint())
                            .address(pb.endpoint())
                            .loadBalancer("round-robin")
                            .timeout(Duration.ofSeconds(10))
                            .build());
            CallLoad load = new CallLoad(16, s::whoAmI);
            try (load) {
                load.awaitMore("a", 400, Duration.ofSeconds(30));
                pa.close(); // graceful: in-flight calls finish, later ones are refused and fail over
                load.awaitMore("b", 800, Duration.ofSeconds(30));
            }
            assertThat(load.errors()).as("failed calls by error").isEmpty();
            assertThat(load.answered("a")).isPositive();
        }
    }

    @Test
    void callsToAProviderThatUnexportedTheServiceFailOver() throws Exception {
        GateServiceImpl a = new GateServiceImpl("a");
        GateServiceImpl b = new GateServiceImpl("b");
        try (RpcServer pa = provider(a);
                RpcServer pb = provider(b);
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(pa.endpoint())
                            .address(pb.endpoint())
                            .loadBalancer("round-robin")
                            .build());
            assertThat(pa.unexport(ServiceKey.of(GateService.class, "", ""))).isTrue();
            for (int i = 0; i < 20; i++) {
                assertThat(s.whoAmI()).isEqualTo("b");
            }
        }
    }

    @Test
    void failoverRetriesATimeoutOnlyForIdempotentMethods() throws Exception {
        GateServiceImpl stuck = new GateServiceImpl("stuck");
        GateServiceImpl fine = new GateServiceImpl("fine");
        fine.gate.countDown();
        try (RpcServer p1 = provider(stuck);
                RpcServer p2 = provider(fine);
                RpcClient client = RpcClient.builder().build()) {
            // Each attempt bounded to 300 ms within the call's 10 s, so that a timed-out attempt leaves time to retry.
            ReferenceOptions.Builder options = ReferenceOptions.builder()
                    .address(p1.endpoint())
                    .address(p2.endpoint())
                    .loadBalancer("round-robin")
                    .retries(1)
                    .attemptTimeout(Duration.ofMillis(300))
                    .timeout(Duration.ofSeconds(10));
            GateService s = client.proxy(GateService.class, options.build());
            // Round robin starts with the first address: the stuck provider.
            assertThat(s.passIdempotent("x")).isEqualTo("x@fine");
            GateService s2 = client.proxy(GateService.class, options.build());
            assertThatThrownBy(() -> s2.pass("y"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            assertThat(fine.runsOf("y"))
                    .as("a non-idempotent call is not run twice")
                    .isZero();
            stuck.gate.countDown();
        }
    }

    /**
     * Before: each retry got a fresh deadline, so a "600 ms" call to three stuck providers ran on
     * all three and its caller waited 1.8 s (and up to timeout x (1 + retries) + 1 s). The call's
     * deadline now holds across its attempts, as gRPC's does: one attempt uses it up, and no retry
     * is sent with no time left.
     */
    @Test
    void aCallsDeadlineHoldsAcrossItsRetries() throws Exception {
        List<GateServiceImpl> stuck =
                List.of(new GateServiceImpl("a"), new GateServiceImpl("b"), new GateServiceImpl("c"));
        List<RpcServer> providers = stuck.stream().map(ClusterTest::provider).toList();
        AtomicReference<Invocation> seen = new AtomicReference<>();
        ClientInterceptor watch = (inv, next) -> {
            seen.set(inv);
            return next.proceed(inv);
        };
        try (RpcClient client = RpcClient.builder().interceptor(watch).build()) {
            ReferenceOptions.Builder options = ReferenceOptions.builder()
                    .loadBalancer("round-robin")
                    .retries(2)
                    .timeout(Duration.ofMillis(600));
            providers.forEach(p -> options.address(p.endpoint()));
            GateService s = client.proxy(GateService.class, options.build());
            long start = System.nanoTime();
            assertThatThrownBy(() -> s.passIdempotent("x"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(stuck.stream()
                            .mapToInt(g -> g.entered.availablePermits())
                            .sum())
                    .as("attempts sent")
                    .isEqualTo(1);
            assertThat(millis)
                    .as("the caller waited about its deadline, not three of them")
                    .isLessThan(1_200);

            // With each attempt bounded, the same call tries all three within its deadline.
            GateService bounded = client.proxy(
                    GateService.class,
                    options.attemptTimeout(Duration.ofMillis(150))
                            .timeout(Duration.ofSeconds(20))
                            .build());
            start = System.nanoTime();
            // An attempt's timeout names its own bound: before, "timed out after 20000 ms" after 150 ms.
            assertThatThrownBy(() -> bounded.passIdempotent("y"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED))
                    .hasMessageContaining("(the call's timeout is 20000 ms)");
            // The first attempt, a bounded copy, is what the caller's interceptors see (its provider, its size).
            assertThat(seen.get().remote()).as("the first attempt's provider").isNotNull();
            assertThat(seen.get().requestBytes()).as("the first attempt's size").isPositive();
            millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(stuck.stream()
                            .mapToInt(g -> g.entered.availablePermits())
                            .sum())
                    .as("1 before, 3 now")
                    .isEqualTo(4);
            assertThat(stuck)
                    .as("each provider tried")
                    .allSatisfy(g -> assertThat(g.entered.availablePermits()).isPositive());
            assertThat(millis)
                    .as("three attempts of 150 ms, not the call's 20 s")
                    .isLessThan(10_000);
        } finally {
            stuck.forEach(g -> g.gate.countDown());
            providers.forEach(RpcServer::close);
        }
    }

    @Test
    void deadProviderIsSetAsideSoFailfastCallsGoToTheLiveOne() throws Exception {
        GateServiceImpl live = new GateServiceImpl("live");
        try (RpcServer p = provider(live);
                RpcClient client = RpcClient.builder()
                        .reconnectBackoff(Duration.ofSeconds(60), Duration.ofSeconds(60))
                        .build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + deadPort())
                            .address(p.endpoint())
                            .cluster("failfast")
                            .build());
            int failures = 0;
            for (int i = 0; i < 200; i++) {
                try {
                    assertThat(s.whoAmI()).isEqualTo("live");
                } catch (RpcException e) {
                    assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
                    failures++;
                }
            }
            // At most the first call to the dead address fails; it is then set aside for 60 s, far
            // longer than the loop takes even on a loaded machine.
            assertThat(failures).isLessThanOrEqualTo(1);
            assertThat(live.runsOf("whoAmI")).isEqualTo(200 - failures);
        }
    }

    @Test
    void failsafeReturnsEmptyValuesAndFailfastTriesOnce() throws Exception {
        int dead = deadPort();
        try (RpcClient client = RpcClient.builder().build()) {
            TypesService safe = client.proxy(
                    TypesService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + dead)
                            .cluster("failsafe")
                            .build());
            assertThat(safe.addInts(1, 2)).isZero();
            assertThat(safe.not(true)).isFalse();
            assertThat(safe.echo("x")).isNull();
            assertThat(safe.list(List.of("a"))).isEmpty();
            TypesService fast = client.proxy(
                    TypesService.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + dead)
                            .cluster("failfast")
                            .build());
            assertThatThrownBy(() -> fast.echo("x"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE));
        }
    }
}
