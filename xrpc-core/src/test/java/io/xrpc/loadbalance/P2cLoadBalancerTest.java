package io.xrpc.loadbalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code p2c} against three real providers on loopback, one of them 20 times slower: the slow one
 * stops getting calls within a few of them, where {@code random} keeps sending it a third; and
 * once it is fast again it is tried again. Counted in calls, not timed.
 */
class P2cLoadBalancerTest {

    public interface Work {
        String work();
    }

    /** A provider whose calls take {@code millis}, counting them. */
    static final class Timed implements Work {
        final String name;
        final AtomicInteger calls = new AtomicInteger();
        volatile int millis;

        Timed(String name, int millis) {
            this.name = name;
            this.millis = millis;
        }

        @Override
        public String work() {
            calls.incrementAndGet();
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return name;
        }
    }

    private static void load(Work work, int threads, int callsEach) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        work.work();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aProviderTwentyTimesSlowerGetsFewCallsAndIsTriedAgainOnceItRecovered() throws Exception {
        Timed fast1 = new Timed("fast1", 1);
        Timed fast2 = new Timed("fast2", 1);
        Timed slow = new Timed("slow", 20);
        List<RpcServer> servers = new ArrayList<>();
        try (RpcClient client = RpcClient.builder().build()) {
            for (Timed t : List.of(fast1, fast2, slow)) {
                servers.add(RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(Work.class, t)
                        .build()
                        .start());
            }
            ReferenceOptions.Builder o = ReferenceOptions.builder().timeout(Duration.ofSeconds(5));
            servers.forEach(s -> o.address(s.endpoint()));
            Work p2c = client.proxy(Work.class, o.loadBalancer("p2c").build());
            Work random = client.proxy(Work.class, o.loadBalancer("random").build());

            // Random first: it warms all three up, and it does not look at latency.
            load(random, 8, 30);
            int randomTotal = fast1.calls.get() + fast2.calls.get() + slow.calls.get();
            double randomShare = slow.calls.get() / (double) randomTotal;
            System.out.printf("random: slow provider got %.1f%% of %d calls%n", 100 * randomShare, randomTotal);
            assertThat(randomShare).as("random does not look at latency").isGreaterThan(0.20);

            int before = slow.calls.get();
            load(p2c, 8, 100);
            int total = fast1.calls.get() + fast2.calls.get() + slow.calls.get() - randomTotal;
            double slowShare = (slow.calls.get() - before) / (double) total;
            System.out.printf(
                    "p2c: slow provider got %d of %d calls (%.1f%%)%n",
                    slow.calls.get() - before, total, 100 * slowShare);
            assertThat(slowShare).as("the slow provider's share under p2c").isLessThan(0.10);

            // Recovered: once nothing of it is in flight its estimate fades, and it is tried again.
            slow.millis = 1;
            int resting = slow.calls.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                load(p2c, 8, 20);
                return slow.calls.get() - resting > 40;
            });
        } finally {
            servers.forEach(RpcServer::close);
        }
    }
}
