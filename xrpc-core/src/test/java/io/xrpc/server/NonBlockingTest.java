package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.NonBlocking;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.ServiceOptions;
import io.xrpc.testing.CapturedErr;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Methods marked NonBlocking run on the event loop; one that blocks there anyway is reported. */
class NonBlockingTest {
    public interface Where {
        @NonBlocking
        String direct();

        String pooled();

        @NonBlocking
        String blocksAnyway() throws InterruptedException;

        @NonBlocking
        String size(byte[] data);
    }

    static final class WhereImpl implements Where {
        @Override
        public String direct() {
            return Thread.currentThread().getName();
        }

        @Override
        public String pooled() {
            return Thread.currentThread().getName();
        }

        @Override
        public String size(byte[] data) {
            return Thread.currentThread().getName();
        }

        @Override
        public String blocksAnyway() throws InterruptedException {
            Thread.sleep(120); // the mistake this warns about
            return Thread.currentThread().getName();
        }
    }

    @Test
    void aNonBlockingMethodRunsOnTheEventLoopAndOthersOnCallThreads() {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(Where.class, new WhereImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Where where = client.proxy(
                    Where.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(where.direct()).startsWith("xrpc-server-io");
            assertThat(where.pooled()).startsWith("xrpc-server-call");
            assertThat(where.size(new byte[1024])).startsWith("xrpc-server-io");
            // A large body is read on a call thread: reading it must not hold the loop.
            assertThat(where.size(new byte[100 * 1024])).startsWith("xrpc-server-call");
        }
    }

    @Test
    void aWholeServiceCanBeMarkedAtExport() {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(
                                Where.class,
                                new WhereImpl(),
                                ServiceOptions.builder().nonBlocking(true).build())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Where where = client.proxy(
                    Where.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(where.pooled()).startsWith("xrpc-server-io");
        }
    }

    @Test
    void aNonBlockingMethodThatBlocksIsReportedOncePerMethod() throws Exception {
        try (CapturedErr err = new CapturedErr();
                RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(Where.class, new WhereImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Where where = client.proxy(
                    Where.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(10))
                            .build());
            where.blocksAnyway();
            where.blocksAnyway();
            // Answered on the same connection and loop after the second call: by then a second
            // report, had there been one, is written.
            where.direct();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> err.text().contains("is marked NonBlocking but held event loop"));
            String log = err.text();
            assertThat(log).contains("blocksAnyway()");
            assertThat(log.split("is marked NonBlocking but held", -1))
                    .as("once per method")
                    .hasSize(2);
        }
    }
}
