package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.ReferenceView;
import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A live provider that is silent for a while must not be taken for a frozen one: the client's
 * silence watch pings a provider that has sent nothing while calls wait on it, and sets it aside
 * with its calls failed when the ping goes unanswered.
 */
class SilentProviderTest {

    public interface Blobs {
        /** Works {@code millis}, then answers {@code kib} KiB. */
        String blob(int kib, int millis);

        /** The length of what was sent. */
        int size(String s);
    }

    static final class BlobsImpl implements Blobs {
        @Override
        public String blob(int kib, int millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "x".repeat(kib * 1024);
        }

        @Override
        public int size(String s) {
            return s.length();
        }
    }

    /** A link of about {@code bytesPerSecond} from the client to the provider; the way back is not held. */
    static final class SlowLink implements AutoCloseable {
        final ServerSocket listener;
        final List<Socket> sockets = new CopyOnWriteArrayList<>();

        SlowLink(int targetPort, int bytesPerSecond) throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(
                    () -> {
                        try {
                            while (true) {
                                Socket in = listener.accept();
                                Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                                sockets.add(in);
                                sockets.add(out);
                                pump(in, out, bytesPerSecond);
                                pump(out, in, 0);
                            }
                        } catch (IOException closed) {
                            // the test is over
                        }
                    },
                    "slow-link");
            accept.setDaemon(true);
            accept.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        private static void pump(Socket from, Socket to, int bytesPerSecond) {
            Thread t = new Thread(
                    () -> {
                        byte[] buf = new byte[8192];
                        try {
                            int n;
                            while ((n = from.getInputStream().read(buf)) > 0) {
                                to.getOutputStream().write(buf, 0, n);
                                if (bytesPerSecond > 0) {
                                    Thread.sleep(1000L
                                            * n
                                            / bytesPerSecond); // the link's pace, not a wait for the code under test
                                }
                            }
                        } catch (IOException | InterruptedException closed) {
                            // either side closed
                        }
                    },
                    "slow-link-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /**
     * A 4 MiB request over a link of 2 MB/s takes two seconds to arrive, during which the provider
     * can answer nothing, not even a ping queued behind it. Before: the provider, quick until then,
     * was set aside 150 ms into the upload and the upload failed CONNECTION_CLOSED. Now no verdict
     * is taken while this side is still handing it bytes.
     */
    @Test
    @Timeout(60)
    void aLargeRequestOnASlowLinkIsNotTakenForSilence() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(Blobs.class, new BlobsImpl())
                        .build()
                        .start();
                SlowLink link = new SlowLink(server.port(), 2_000_000);
                RpcClient client = RpcClient.builder().build()) {
            Blobs blobs = client.proxy(
                    Blobs.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + link.port())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            for (int i = 0; i < 40; i++) { // its usual answer time becomes known: about a millisecond
                assertThat(blobs.size("x")).isEqualTo(1);
            }
            assertThat(blobs.size("x".repeat(4 << 20))).isEqualTo(4 << 20);
            assertThat(client.references().get(0).providers())
                    .noneMatch(p -> p.state() == ReferenceView.State.SET_ASIDE);
        }
    }

    /**
     * Calls whose answers are large and slow fill the room the provider keeps for a connection's
     * answers, so it stops reading that connection until they end, and the client's ping waits
     * unread. Before: the provider, quick until then, was set aside after 150 ms of it and all
     * eight calls failed CONNECTION_CLOSED. Now a provider that paused reading says it is alive.
     */
    @Test
    @Timeout(60)
    void aProviderThatPausedReadingForLargeSlowAnswersIsNotTakenForFrozen() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(Blobs.class, new BlobsImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Blobs blobs = client.proxy(
                    Blobs.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            for (int i = 0; i < 40; i++) { // its usual answer time becomes known: a few milliseconds
                assertThat(blobs.blob(300, 1)).hasSize(300 * 1024);
            }
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                List<CompletableFuture<String>> slow = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    slow.add(CompletableFuture.supplyAsync(() -> blobs.blob(300, 1500), callers));
                }
                for (CompletableFuture<String> f : slow) {
                    assertThat(f.get(30, TimeUnit.SECONDS)).hasSize(300 * 1024);
                }
            } finally {
                callers.shutdownNow();
            }
            assertThat(client.references().get(0).providers())
                    .noneMatch(p -> p.state() == ReferenceView.State.SET_ASIDE);
        }
    }
}
