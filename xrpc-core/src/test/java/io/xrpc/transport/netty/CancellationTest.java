package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.RawPeer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A CANCEL frame: what a provider does with a request its client gave up on. */
class CancellationTest {

    /**
     * Provider x runs one call at a time and is busy; a hedged call's first attempt waits in its
     * queue, the hedge is answered by y, and the waiting attempt is cancelled. With CANCEL it never
     * runs on x; without (the client's {@code cancelOnProvider(false)}) it runs when x frees up.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @Timeout(60)
    void aLostHedgeStillWaitingOnItsProviderIsNotRunThere(boolean cancelOnProvider) throws Exception {
        GateServiceImpl x = new GateServiceImpl("x");
        GateServiceImpl y = new GateServiceImpl("y");
        y.gate.countDown();
        try (RpcServer px = RpcServer.builder()
                        .host("127.0.0.1")
                        .executorThreads(1)
                        .executorQueue(8)
                        .service(GateService.class, x)
                        .build()
                        .start();
                RpcServer py = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, y)
                        .build()
                        .start();
                RpcClient client =
                        RpcClient.builder().cancelOnProvider(cancelOnProvider).build()) {
            GateService onlyX = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(px.endpoint())
                            .timeout(Duration.ofSeconds(20))
                            .build());
            CompletableFuture<String> busy = onlyX.passAsync("busy"); // holds x's one thread
            assertThat(x.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            // Round robin sends the first attempt to x, where it waits behind "busy".
            GateService hedged = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(px.endpoint())
                            .address(py.endpoint())
                            .loadBalancer("round-robin")
                            .timeout(Duration.ofSeconds(20))
                            .hedging(Hedging.after(Duration.ofMillis(100)))
                            .build());
            assertThat(hedged.passIdempotent("h")).isEqualTo("h@y");
            // The lost attempt ends on the client (x has only "busy" in flight) in the same step that
            // queues its CANCEL; a call queued after that on the same connection is read after it.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> client.references().get(1).providers().stream()
                                    .filter(p -> p.endpoint().equals(px.endpoint()))
                                    .mapToInt(p -> p.activeCalls())
                                    .sum()
                            == 1);
            CompletableFuture<String> after = onlyX.passAsync("after");
            // x has read "after" (busy, h, after: three calls not answered), so the CANCEL before it too.
            await().atMost(Duration.ofSeconds(10)).until(() -> px.inFlight() == 3);
            x.gate.countDown();
            assertThat(busy.get(10, TimeUnit.SECONDS)).isEqualTo("busy");
            assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("after");
            assertThat(x.runsOf("h")).as("runs on x of the attempt that lost").isEqualTo(cancelOnProvider ? 0 : 1);
        }
    }

    @Test
    @Timeout(30)
    void aCancelOfNoCallOrWithABodyIsIgnoredAndTheConnectionServesOn() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(GateService.class, new GateServiceImpl())
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.port())) {
            peer.send(RawPeer.frame(MessageType.CANCEL, (byte) 0, 12345, 0, new byte[0]));
            peer.send(RawPeer.frame(MessageType.CANCEL, (byte) 0, -1, 0, new byte[100]));
            peer.send(RawPeer.frame(MessageType.HEARTBEAT_PING, (byte) 0, 0, 0, new byte[0]));
            RawPeer.Reply pong = peer.read();
            assertThat(pong.type())
                    .as("the connection answers after both")
                    .isEqualTo(MessageType.HEARTBEAT_PONG.code());
            assertThat(server.connectionCount()).isEqualTo(1);
        }
    }
}
