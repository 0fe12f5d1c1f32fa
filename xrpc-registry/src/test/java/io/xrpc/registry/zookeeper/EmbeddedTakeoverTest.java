package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three JVMs on {@code embedded}, as on a laptop: A starts first and so serves ZooKeeper, B and
 * this one (C) register and call each other. Before, killing A left B and C without a registry
 * until A ran again: no new provider could be found, and none re-registered. Now one of them takes
 * the port over, both register and subscribe again, they keep calling each other, and a provider
 * that starts after the takeover is found.
 */
class EmbeddedTakeoverTest {

    @Test
    @Timeout(180)
    void whenTheServingJvmStopsAnotherServesAndTheOthersKeepCallingEachOther() throws Exception {
        int port = freePort();
        try (ForkedJvm a = new ForkedJvm(EmbeddedPeerProcess.class, Integer.toString(port), "a");
                ForkedJvm b = new ForkedJvm(EmbeddedPeerProcess.class, Integer.toString(port), "b", "c")) {
            EmbeddedPeerProcess c = new EmbeddedPeerProcess(port, "c", "b");
            EmbeddedPeerProcess d = null;
            try {
                GateService toB = c.client.proxy(
                        GateService.class,
                        ReferenceOptions.builder()
                                .group("b")
                                .timeout(Duration.ofSeconds(1))
                                .retries(0)
                                .build());
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .until(() -> c.succeeded.get() > 0 && callsOf(toB) > 0);
                assertThat(EmbeddedZooKeeper.serves(port))
                        .as("A serves, not this JVM")
                        .isFalse();

                long killed = System.nanoTime();
                a.kill();
                // B or C serves the port again, and both are listed there once more.
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(250))
                        .ignoreExceptions()
                        .until(() -> listed(port, "b") && listed(port, "c"));
                System.out.printf(
                        "registry whole again %d ms after the serving JVM was killed (served by %s)%n",
                        (System.nanoTime() - killed) / 1_000_000, EmbeddedZooKeeper.serves(port) ? "C" : "B");

                long cBefore = c.succeeded.get();
                long bBefore = callsOf(toB);
                await().atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> c.succeeded.get() > cBefore + 5 && callsOf(toB) > bBefore + 5);

                // A provider that starts after the takeover is found: subscriptions read the new server.
                d = new EmbeddedPeerProcess(port, "d", null);
                GateService toD = c.client.proxy(
                        GateService.class,
                        ReferenceOptions.builder()
                                .group("d")
                                .timeout(Duration.ofSeconds(1))
                                .retries(0)
                                .build());
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> "d".equals(toD.whoAmI()));
            } finally {
                if (d != null) {
                    d.close();
                }
                c.close();
            }
        }
    }

    private static long callsOf(GateService peer) {
        return Long.parseLong(peer.quick("calls"));
    }

    /** Whether the ZooKeeper on {@code port} lists a provider of {@code group}, read by a client of its own. */
    private static boolean listed(int port, String group) {
        try (Registry registry = Registries.create("zookeeper://127.0.0.1:" + port + "?connect-timeout=2s")) {
            return !registry.subscribe(ServiceKey.of(GateService.class, "", group), list -> {})
                    .instances()
                    .isEmpty();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
