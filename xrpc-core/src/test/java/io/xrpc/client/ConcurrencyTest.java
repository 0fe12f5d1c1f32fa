package io.xrpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.TypesService;
import io.xrpc.testing.TypesServiceImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ConcurrencyTest {

    @Test
    @Timeout(300)
    void thirtyTwoThreadsShareOneConnectionAndEveryResponseMatchesItsRequest() throws Exception {
        int threads = 32;
        int calls = 10_000;
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(TypesService.class, new TypesServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            TypesService s = client.proxy(
                    TypesService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(30))
                            .build());
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    results.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        int mismatches = 0;
                        for (int i = 0; i < calls; i++) {
                            String sent = thread + ":" + i;
                            if (!sent.equals(s.echo(sent))) {
                                mismatches++;
                            }
                        }
                        return mismatches;
                    }));
                }
                for (Future<Integer> r : results) {
                    assertThat(r.get(280, TimeUnit.SECONDS)).isZero();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(client.openConnections()).isEqualTo(1);
            assertThat(server.connectionCount()).isEqualTo(1);
            assertThat(client.pendingCalls()).isZero();
        }
    }

    @Test
    void manyThreadsMakingTheFirstCallTogetherOpenOneConnection() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(TypesService.class, new TypesServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            TypesService s = client.proxy(
                    TypesService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            int threads = 16;
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String tag = "t" + t;
                    results.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return s.echo(tag);
                    }));
                }
                for (int t = 0; t < threads; t++) {
                    assertThat(results.get(t).get(20, TimeUnit.SECONDS)).isEqualTo("t" + t);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(server.connectionCount()).isEqualTo(1);
        }
    }
}
