package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.RawPeer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With an authenticator, a connection has to earn its place. Before: peers whose calls were all
 * refused kept their connections, and heartbeat pings reset the idle close, so four of them locked
 * an authenticated client out of a server capped at four connections.
 */
@Timeout(60)
class UnauthenticatedConnectionTest {
    private static final Authenticator ONLY_GOOD = (credentials, service, method, peer) ->
            "Bearer good".equals(credentials) ? null : "a valid bearer token is required";

    private static RpcServer.Builder server() {
        return RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .authenticator(ONLY_GOOD)
                .service(GateService.class, new GateServiceImpl("guarded"));
    }

    private static GateService proxy(RpcClient client, RpcServer server) {
        return client.proxy(
                GateService.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .retries(0)
                        .timeout(Duration.ofSeconds(10))
                        .build());
    }

    /** The next frame that is not a heartbeat's answer. */
    private static RawPeer.Reply next(RawPeer peer) throws IOException {
        RawPeer.Reply r;
        do {
            r = peer.read();
        } while (r.type() == MessageType.HEARTBEAT_PONG.code());
        return r;
    }

    private static byte[] ping() {
        return RawPeer.frame(MessageType.HEARTBEAT_PING, (byte) 0, 0, 0, new byte[0]);
    }

    @Test
    void peersThatOnlyPingCannotHoldTheSlotsAnAuthenticatedClientNeeds() throws Exception {
        // A long authentication timeout: here the cap alone must let the good client in.
        try (RpcServer server = server().maxConnections(4)
                        .authenticationTimeout(Duration.ofMinutes(1))
                        .build()
                        .start();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            List<RawPeer> squatters = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    RawPeer p = new RawPeer(server.endpoint().port());
                    p.send(ping());
                    // Its pong: the server has taken it in, so the squatters queue in this order.
                    assertThat(p.read().type()).isEqualTo(MessageType.HEARTBEAT_PONG.code());
                    squatters.add(p);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 4);
                for (RawPeer p : squatters) {
                    p.send(ping()); // still alive, still unauthenticated
                }
                assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
                // The oldest squatter made room: told why, and closed.
                RawPeer.Reply bye = next(squatters.get(0));
                assertThat(bye.type()).isEqualTo(MessageType.GOAWAY.code());
                assertThat(bye.status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
                assertThat(bye.message())
                        .contains("carried no authenticated call")
                        .contains("connection limit (4)");
                assertThat(server.authenticationClosures()).isEqualTo(1);
                // Once authenticated, a connection is not what the next newcomer evicts.
                try (RawPeer late = new RawPeer(server.endpoint().port())) {
                    late.send(ping());
                    assertThat(next(squatters.get(1)).status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
                    assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
                }
            } finally {
                for (RawPeer p : squatters) {
                    p.close();
                }
            }
        }
    }

    @Test
    void aConnectionWithNoAuthenticatedCallIsClosedAfterTheTimeoutHowEverItPings() throws Exception {
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(800))
                        .build()
                        .start();
                RawPeer idle = new RawPeer(server.endpoint().port())) {
            long start = System.nanoTime();
            idle.send(ping());
            RawPeer.Reply bye = next(idle);
            assertThat(bye.type()).isEqualTo(MessageType.GOAWAY.code());
            assertThat(bye.status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
            assertThat(bye.message())
                    .contains("no authenticated call within 800 ms")
                    .contains("authenticationTimeout");
            assertThat(System.nanoTime() - start)
                    .isGreaterThanOrEqualTo(Duration.ofMillis(700).toNanos());
            assertThat(idle.readUntilClosed())
                    .as("nothing after it: this side's end of the stream")
                    .isEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
            assertThat(server.authenticationClosures()).isEqualTo(1);
        }
    }

    @Test
    void aConnectionRefusedThreeTimesInARowIsClosedNamingTheReasonAndItsClientCarriesOn() throws Exception {
        try (RpcServer server = server().build().start();
                RpcClient wrong = RpcClient.builder()
                        .credentials(inv -> "Bearer stolen")
                        .credentialsOverPlaintext(true)
                        .build();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService gate = proxy(wrong, server);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(gate::whoAmI)
                        .isInstanceOfSatisfying(
                                RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.authenticationClosures() == 1);
            assertThat(server.authenticationRefusals()).isEqualTo(3);
            // The refused client's next call opens a new connection and is refused as before,
            // never set aside as if the provider had failed.
            assertThatThrownBy(gate::whoAmI)
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
            assertThat(server.authenticationRefusals()).isEqualTo(4);
        }
    }

    @Test
    void anAuthenticatedConnectionStaysPastTheTimeout() throws Exception {
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(300))
                        .build()
                        .start();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService gate = proxy(good, server);
            assertThat(gate.whoAmI()).isEqualTo("guarded");
            // Past the timeout by far, with a fresh unauthenticated connection closed meanwhile as a clock.
            try (RawPeer clock = new RawPeer(server.endpoint().port())) {
                clock.send(ping());
                assertThat(next(clock).status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
            }
            assertThat(gate.whoAmI()).isEqualTo("guarded");
            assertThat(server.authenticationClosures()).isEqualTo(1);
            assertThat(server.connectionCount()).isGreaterThanOrEqualTo(1);
        }
    }

    /**
     * A connection that authenticated once is shared (a gateway's callers, say): refusals of some
     * of its calls do not close it under the others.
     */
    @Test
    void refusalsOnAnAuthenticatedConnectionDoNotCloseIt() throws Exception {
        AtomicReference<String> token = new AtomicReference<>("Bearer good");
        try (RpcServer server = server().build().start();
                RpcClient gateway = RpcClient.builder()
                        .credentials(inv -> token.get())
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService gate = proxy(gateway, server);
            assertThat(gate.whoAmI()).isEqualTo("guarded");
            token.set("Bearer expired");
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(gate::whoAmI)
                        .isInstanceOfSatisfying(
                                RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            }
            token.set("Bearer good");
            assertThat(gate.whoAmI()).isEqualTo("guarded");
            assertThat(server.authenticationClosures()).isZero();
            assertThat(server.authenticationRefusals()).isEqualTo(5);
        }
    }

    /**
     * Before: a connection closed for authentication waited for its GOAWAY to be written, and a
     * peer that stopped reading kept it from ever being written, so the connection stayed open.
     */
    @Test
    void aConnectionClosedForAuthenticationClosesEvenIfThePeerNeverReads() throws Exception {
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(500))
                        .build()
                        .start();
                RawPeer stuck = new RawPeer(server.endpoint().port(), 4096)) {
            byte[] unknown = RawPeer.request(1, Codecs.KRYO_ID, 5000, "no.Such", "x()", new byte[0]);
            Thread flood = new Thread(
                    () -> {
                        try {
                            for (int i = 0; i < 50_000; i++) {
                                stuck.send(unknown); // answered SERVICE_NOT_FOUND, never read
                            }
                        } catch (IOException closed) {
                            // the server closed it: what this test waits for
                        }
                    },
                    "flood");
            flood.setDaemon(true);
            flood.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.authenticationClosures() == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
        }
    }

    /**
     * Keeps a frame always half-arrived: the rest of one ping and the first 12 bytes of the next,
     * every 300 ms, well inside the frame timeout. Stops when the server closes the connection.
     */
    private static Thread trickle(RawPeer peer) {
        byte[] ping = ping();
        Thread t = new Thread(
                () -> {
                    try {
                        peer.send(Arrays.copyOf(ping, 12));
                        for (int i = 0; i < 100; i++) {
                            Thread.sleep(300); // the peer's pace, not a wait for the server
                            byte[] rest = Arrays.copyOfRange(ping, 12, ping.length);
                            byte[] both = Arrays.copyOf(rest, rest.length + 12);
                            System.arraycopy(ping, 0, both, rest.length, 12);
                            peer.send(both);
                        }
                    } catch (IOException | InterruptedException closed) {
                        // closed by the server: what the tests wait for
                    }
                },
                "trickle");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Before: the deadline looked again whenever a frame was arriving, so this peer stayed for ever. */
    @Test
    void aPeerThatAlwaysHasAFrameHalfSentIsClosedAtTheDeadlinePlusOneFrameTimeout() throws Exception {
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(600))
                        .frameTimeout(Duration.ofSeconds(1))
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.endpoint().port())) {
            trickle(peer);
            RawPeer.Reply bye = next(peer);
            assertThat(bye.type()).isEqualTo(MessageType.GOAWAY.code());
            assertThat(bye.status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
            assertThat(bye.message()).contains("no authenticated call within 600 ms", "nor by the end of the frame");
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
            assertThat(server.authenticationClosures()).isEqualTo(1);
        }
    }

    /** Before: a connection with a frame arriving was not evictable, so four tricklers locked the good client out. */
    @Test
    void peersThatAlwaysHaveAFrameHalfSentAreEvictedAtTheCap() throws Exception {
        try (RpcServer server = server().maxConnections(4)
                        .authenticationTimeout(Duration.ofMinutes(1))
                        .build()
                        .start();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            List<RawPeer> tricklers = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    RawPeer p = new RawPeer(server.endpoint().port());
                    tricklers.add(p);
                    trickle(p);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 4);
                assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
                assertThat(server.authenticationClosures()).isEqualTo(1);
            } finally {
                for (RawPeer p : tricklers) {
                    p.close();
                }
            }
        }
    }

    /**
     * Before: peers without credentials holding almost-whole large frames filled the server's whole
     * memory budget, and an authenticated client's 1 MiB call was refused SERVER_BUSY.
     */
    @Test
    void peersWithoutCredentialsHoldingLargeFramesCostOnlyTheirShareOfTheMemoryBudget() throws Exception {
        int budget = 16 << 20; // the share: a quarter, 4 MiB (at least one frame, 2 MiB here)
        try (RpcServer server = server().maxRequestMemory(budget)
                        .maxFrameLength(2 << 20)
                        .authenticationTimeout(Duration.ofMinutes(1))
                        .frameTimeout(Duration.ofSeconds(50))
                        .build()
                        .start();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService gate = proxy(good, server);
            assertThat(gate.whoAmI()).isEqualTo("guarded"); // its connection has authenticated
            int body = 3 << 19; // 1.5 MiB claimed, all but the last 10 bytes sent
            byte[] frame = RawPeer.frame(
                    MessageType.REQUEST,
                    Codecs.KRYO_ID,
                    1,
                    60_000,
                    RawPeer.requestBody(GateService.class.getName(), "quick(java.lang.String)", new byte[body]));
            byte[] almost = Arrays.copyOf(frame, frame.length - 10);
            List<RawPeer> holders = new ArrayList<>();
            int refused = 0;
            try {
                for (int i = 0; i < 12; i++) {
                    RawPeer p = new RawPeer(server.endpoint().port());
                    holders.add(p);
                    long before = server.requestMemoryBytes();
                    CompletableFuture<RawPeer.Reply> reply = CompletableFuture.supplyAsync(() -> {
                        try {
                            return next(p);
                        } catch (IOException e) {
                            return null;
                        }
                    });
                    p.send(almost);
                    // Either all of it is held, or it was refused unread.
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> reply.isDone() || server.requestMemoryBytes() >= before + almost.length - 200);
                    if (reply.isDone()) {
                        assertThat(reply.join().status()).isEqualTo(RpcStatus.SERVER_BUSY.code());
                        assertThat(reply.join().message()).contains("not authenticated");
                        refused++;
                    }
                }
                assertThat(server.requestMemoryBytes())
                        .as("held by peers without credentials")
                        .isLessThanOrEqualTo(budget / 4);
                assertThat(refused).isGreaterThanOrEqualTo(9);
                String large = "x".repeat(1 << 20);
                assertThat(gate.quick(large)).isEqualTo(large);
            } finally {
                for (RawPeer p : holders) {
                    p.close();
                }
            }
        }
    }

    /**
     * Before: the adaptive limit took its slot as a request arrived, so callers without
     * credentials, held by a slow authenticator, filled it and an authenticated call was refused.
     */
    @Test
    void theAdaptiveLimitAdmitsOnlyWhatTheAuthenticatorAdmitted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger deciding = new AtomicInteger();
        Authenticator slowToRefuse = (credentials, service, method, peer) -> {
            if ("Bearer good".equals(credentials)) {
                return null;
            }
            deciding.incrementAndGet();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "a valid bearer token is required";
        };
        int strangers = 30; // more than the limit's first value (20)
        ExecutorService callers = Executors.newFixedThreadPool(strangers);
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .authenticator(slowToRefuse)
                        .adaptiveConcurrency(true)
                        .service(GateService.class, new GateServiceImpl("guarded"))
                        .build()
                        .start();
                RpcClient stranger = RpcClient.builder()
                        .credentials(inv -> "Bearer bad")
                        .credentialsOverPlaintext(true)
                        .build();
                RpcClient good = RpcClient.builder()
                        .credentials(inv -> "Bearer good")
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService bad = proxy(stranger, server);
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < strangers; i++) {
                calls.add(callers.submit(() -> {
                    try {
                        bad.whoAmI();
                    } catch (RpcException refused) {
                        // refused, as they must be
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> deciding.get() == strangers);
            assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
            release.countDown();
            for (Future<?> f : calls) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            release.countDown();
            callers.shutdownNow();
        }
    }

    /**
     * Before: at the deadline a connection with a call still with the authenticator was looked at
     * again later, so a peer that always had one there (the refusal cap off) was never closed.
     */
    @Test
    void callsKeptWithTheAuthenticatorCannotHoldAConnectionPastItsDeadline() throws Exception {
        Authenticator slowToRefuse = (credentials, service, method, peer) -> {
            try {
                Thread.sleep(150); // a slow token check
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "a valid bearer token is required";
        };
        ExecutorService callers = Executors.newFixedThreadPool(4);
        AtomicBoolean stop = new AtomicBoolean();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .authenticator(slowToRefuse)
                        .maxAuthenticationFailures(0)
                        .authenticationTimeout(Duration.ofMillis(500))
                        .service(GateService.class, new GateServiceImpl("guarded"))
                        .build()
                        .start();
                RpcClient stranger = RpcClient.builder()
                        .credentials(inv -> "Bearer bad")
                        .credentialsOverPlaintext(true)
                        .build()) {
            GateService bad = proxy(stranger, server);
            for (int i = 0; i < 4; i++) {
                callers.submit(() -> {
                    while (!stop.get()) {
                        try {
                            bad.whoAmI();
                        } catch (RpcException refused) {
                            // refused, as every call of it must be
                        }
                    }
                });
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.authenticationClosures() >= 1);
        } finally {
            stop.set(true);
            callers.shutdownNow();
        }
    }
}
