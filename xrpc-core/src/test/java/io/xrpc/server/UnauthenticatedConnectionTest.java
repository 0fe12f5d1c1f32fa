package io.xrpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.RawPeer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
        return RpcServer.builder().host("127.0.0.1").port(0).authenticator(ONLY_GOOD)
                .service(GateService.class, new GateServiceImpl("guarded"));
    }

    private static GateService proxy(RpcClient client, RpcServer server) {
        return client.proxy(GateService.class, ReferenceOptions.builder().address(server.endpoint()).retries(0)
                .timeout(Duration.ofSeconds(10)).build());
    }

    /** The next frame that is not a heartbeat's answer. */
    private static RawPeer.Reply next(RawPeer peer) throws java.io.IOException {
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
        try (RpcServer server = server().maxConnections(4).authenticationTimeout(Duration.ofMinutes(1)).build().start();
             RpcClient good = RpcClient.builder().credentials(inv -> "Bearer good").credentialsOverPlaintext(true)
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
                assertThat(bye.message()).contains("carried no authenticated call").contains("connection limit (4)");
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
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(800)).build().start();
             RawPeer idle = new RawPeer(server.endpoint().port())) {
            long start = System.nanoTime();
            idle.send(ping());
            RawPeer.Reply bye = next(idle);
            assertThat(bye.type()).isEqualTo(MessageType.GOAWAY.code());
            assertThat(bye.status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
            assertThat(bye.message()).contains("no authenticated call within 800 ms").contains("authenticationTimeout");
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(700).toNanos());
            assertThat(idle.readUntilClosed()).as("nothing after it: this side's end of the stream").isEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
            assertThat(server.authenticationClosures()).isEqualTo(1);
        }
    }

    @Test
    void aConnectionRefusedThreeTimesInARowIsClosedNamingTheReasonAndItsClientCarriesOn() throws Exception {
        try (RpcServer server = server().build().start();
             RpcClient wrong = RpcClient.builder().credentials(inv -> "Bearer stolen").credentialsOverPlaintext(true)
                     .build();
             RpcClient good = RpcClient.builder().credentials(inv -> "Bearer good").credentialsOverPlaintext(true)
                     .build()) {
            GateService gate = proxy(wrong, server);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(gate::whoAmI).isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.authenticationClosures() == 1);
            assertThat(server.authenticationRefusals()).isEqualTo(3);
            // The refused client's next call opens a new connection and is refused as before,
            // never set aside as if the provider had failed.
            assertThatThrownBy(gate::whoAmI).isInstanceOfSatisfying(RpcException.class,
                    e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
            assertThat(proxy(good, server).whoAmI()).isEqualTo("guarded");
            assertThat(server.authenticationRefusals()).isEqualTo(4);
        }
    }

    @Test
    void anAuthenticatedConnectionStaysPastTheTimeout() throws Exception {
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(300)).build().start();
             RpcClient good = RpcClient.builder().credentials(inv -> "Bearer good").credentialsOverPlaintext(true)
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
        java.util.concurrent.atomic.AtomicReference<String> token = new java.util.concurrent.atomic.AtomicReference<>(
                "Bearer good");
        try (RpcServer server = server().build().start();
             RpcClient gateway = RpcClient.builder().credentials(inv -> token.get()).credentialsOverPlaintext(true)
                     .build()) {
            GateService gate = proxy(gateway, server);
            assertThat(gate.whoAmI()).isEqualTo("guarded");
            token.set("Bearer expired");
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(gate::whoAmI).isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED));
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
        try (RpcServer server = server().authenticationTimeout(Duration.ofMillis(500)).build().start();
             RawPeer stuck = new RawPeer(server.endpoint().port(), 4096)) {
            byte[] unknown = RawPeer.request(1, io.xrpc.serialize.kryo.KryoSerializer.ID, 5000, "no.Such", "x()",
                    new byte[0]);
            Thread flood = new Thread(() -> {
                try {
                    for (int i = 0; i < 50_000; i++) {
                        stuck.send(unknown); // answered SERVICE_NOT_FOUND, never read
                    }
                } catch (java.io.IOException closed) {
                    // the server closed it: what this test waits for
                }
            }, "flood");
            flood.setDaemon(true);
            flood.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.authenticationClosures() == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
        }
    }
}
