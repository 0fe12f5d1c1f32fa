package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** Virtual call threads: the same bounded pool on JDK 21+, a clear refusal before. */
class CallThreadsTest {
    public interface ThreadKind {
        String name();

        boolean virtual();
    }

    static final class ThreadKindImpl implements ThreadKind {
        @Override
        public String name() {
            return Thread.currentThread().getName();
        }

        @Override
        public boolean virtual() {
            try { // Thread.isVirtual() is JDK 21+; the tests compile for 17
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** A ThreadKind provider on loopback, its builder first given {@code setUp}. */
    private static RpcServer threadKindServer(UnaryOperator<RpcServer.Builder> setUp) {
        return setUp.apply(RpcServer.builder().host("127.0.0.1"))
                .service(ThreadKind.class, new ThreadKindImpl())
                .build()
                .start();
    }

    /** The ThreadKind {@code server} exports, called without retries. */
    private static ThreadKind threadKind(RpcClient client, RpcServer server) {
        return client.proxy(
                ThreadKind.class,
                ReferenceOptions.builder().address(server.endpoint()).retries(0).build());
    }

    @Test
    void platformThreadsAreTheDefault() {
        try (RpcServer server = threadKindServer(b -> b);
                RpcClient client = RpcClient.builder().build()) {
            assertThat(threadKind(client, server).name()).startsWith("xrpc-server-call");
        }
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void beforeJdk21VirtualCallThreadsFailTheBuildNamingTheJdk() {
        RpcServer.Builder b = RpcServer.builder()
                .host("127.0.0.1")
                .callThreads(CallThreads.VIRTUAL)
                .service(ThreadKind.class, new ThreadKindImpl());
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("callThreads(VIRTUAL): virtual threads need JDK 21 or later")
                .hasMessageContaining(Runtime.version().toString())
                .hasMessageContaining("CallThreads.PLATFORM");
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void onJdk21CallsRunOnVirtualThreadsNamedAfterTheServer() {
        try (RpcServer server = threadKindServer(b -> b.callThreads(CallThreads.VIRTUAL));
                RpcClient client = RpcClient.builder().build()) {
            ThreadKind kind = threadKind(client, server);
            assertThat(kind.virtual()).isTrue();
            assertThat(kind.name()).startsWith("xrpc-server-call-");
        }
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualCallThreadsKeepTheBoundAndBlockedCallsDoNotStopOthers() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        int threads = 4 * Runtime.getRuntime().availableProcessors(); // more blocked calls than carriers
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .callThreads(CallThreads.VIRTUAL)
                        .executorThreads(threads + 1)
                        .executorQueue(0)
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            GateService s = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            List<CompletableFuture<String>> blocked = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                blocked.add(s.passAsync("b" + i));
            }
            assertThat(impl.entered.tryAcquire(threads, 10, TimeUnit.SECONDS)).isTrue();
            // More calls blocked than there are carriers, and one more still runs.
            CompletableFuture<String> last = s.passAsync("last");
            assertThat(impl.entered.tryAcquire(1, 10, TimeUnit.SECONDS)).isTrue();
            // All threads taken, no queue: the next call is refused at once, as with platform threads.
            assertThatThrownBy(() -> s.quick("y"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.SERVER_BUSY));
            impl.gate.countDown();
            for (CompletableFuture<String> f : blocked) {
                assertThat(f.get(10, TimeUnit.SECONDS)).startsWith("b");
            }
            assertThat(last.get(10, TimeUnit.SECONDS)).isEqualTo("last");
        }
    }

    /**
     * The default call threads keep as many threads awake as there are cores and wake no other
     * while those will take the next call; calls that block must still not hold others back: here
     * four times the cores block from one connection, each has a thread of its own, and another
     * connection's call is answered while they stay blocked.
     */
    @Test
    void byDefaultBlockedCallsEachHaveAThreadAndAnotherConnectionIsStillServed() throws Exception {
        GateServiceImpl impl = new GateServiceImpl();
        int blockedCalls = 4 * Runtime.getRuntime().availableProcessors();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, impl)
                        .build()
                        .start();
                RpcClient first = RpcClient.builder().build();
                RpcClient second = RpcClient.builder().build()) {
            ReferenceOptions options = ReferenceOptions.builder()
                    .address(server.endpoint())
                    .timeout(Duration.ofSeconds(30))
                    .retries(0)
                    .build();
            GateService blocking = first.proxy(GateService.class, options);
            List<CompletableFuture<String>> blocked = new ArrayList<>();
            for (int i = 0; i < blockedCalls; i++) {
                blocked.add(blocking.passAsync("b" + i));
            }
            assertThat(impl.entered.tryAcquire(blockedCalls, 20, TimeUnit.SECONDS))
                    .as("every blocking call runs at once")
                    .isTrue();
            assertThat(second.proxy(GateService.class, options).quick("other connection"))
                    .isEqualTo("other connection");
            assertThat(blocking.quick("same connection")).isEqualTo("same connection");
            assertThat(blocked).allSatisfy(f -> assertThat(f).isNotDone());
            impl.gate.countDown();
            for (CompletableFuture<String> f : blocked) {
                assertThat(f.get(20, TimeUnit.SECONDS)).startsWith("b");
            }
        }
    }

    @Test
    void anApplicationsExecutorRunsTheCallsAndItsRefusalIsAnsweredServerBusy() {
        ExecutorService app = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "app-call");
            t.setDaemon(true);
            return t;
        });
        try (RpcServer server = threadKindServer(b -> b.executor(app));
                RpcServer refusing = threadKindServer(b -> b.executor(call -> {
                    throw new RejectedExecutionException("the application's pool is full");
                }));
                RpcClient client = RpcClient.builder().build()) {
            assertThat(threadKind(client, server).name()).isEqualTo("app-call");
            assertThatThrownBy(threadKind(client, refusing)::name).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERVER_BUSY);
                assertThat(e.getMessage()).contains("its executor refused the call (the application's pool is full)");
            });
        } finally {
            assertThat(app.isShutdown())
                    .as("the server leaves the application's executor alone")
                    .isFalse();
            app.shutdownNow();
        }
    }

    public interface Burst {
        CompletableFuture<Integer> echo(int i);
    }

    /**
     * Before: with no queue by default, a call that arrived while every thread was busy, even about
     * to finish, was refused SERVER_BUSY; 37 of 233,050 calls at 256 callers failed so against an
     * idle provider. A burst read from one connection is not overload: by default it waits.
     */
    @Test
    void aBurstFromOneConnectionWaitsForAThreadByDefault() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .executorThreads(4)
                        .service(Burst.class, i -> {
                            try {
                                Thread.sleep(1); // holds its thread a little, as real work does
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return CompletableFuture.completedFuture(i);
                        })
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Burst burst = client.proxy(
                    Burst.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .retries(0)
                            .timeout(Duration.ofSeconds(20))
                            .build());
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                calls.add(burst.echo(i));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i);
            }
        }
    }
}
