package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.TypesService;
import io.xrpc.testing.TypesServiceImpl;
import java.io.InputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Heartbeats keep a quiet but live connection open, and close one whose peer went silent. */
class HeartbeatTest {

    @Test
    void anIdleConnectionBetweenLivePeersOutlivesManyIntervals() throws Exception {
        Duration hb = Duration.ofMillis(100);
        try (RpcServer server = RpcServer.builder().host("127.0.0.1").heartbeatInterval(hb)
                .service(TypesService.class, new TypesServiceImpl()).build().start();
             RpcClient client = RpcClient.builder().heartbeatInterval(hb).build()) {
            TypesService s = client.proxy(TypesService.class, ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(s.echo("a")).isEqualTo("a");
            // Ten intervals with no call: each side hears the other's pings and pongs, so neither
            // takes the other for dead.
            await().during(Duration.ofMillis(10 * hb.toMillis())).atMost(Duration.ofSeconds(5))
                    .until(() -> server.connectionCount() == 1 && client.openConnections() == 1);
            assertThat(s.echo("b")).isEqualTo("b");
        }
    }

    @Test
    void aPeerThatSendsNothingIsPingedTwiceThenClosed() throws Exception {
        Duration hb = Duration.ofMillis(100);
        try (RpcServer server = RpcServer.builder().host("127.0.0.1").heartbeatInterval(hb)
                .service(TypesService.class, new TypesServiceImpl()).build().start();
             RawPeer silent = new RawPeer(server.port())) {
            InputStream in = silent.socket.getInputStream();
            byte[] got = in.readAllBytes(); // returns once the server has closed the connection
            java.nio.ByteBuffer frames = java.nio.ByteBuffer.wrap(got);
            int pings = 0;
            while (frames.hasRemaining()) {
                assertThat(frames.get(frames.position() + 3)).isEqualTo(MessageType.HEARTBEAT_PING.code());
                int bodyLength = frames.getInt(frames.position() + ProtocolConstants.HEADER_LENGTH - 4);
                frames.position(frames.position() + ProtocolConstants.HEADER_LENGTH + bodyLength);
                pings++;
            }
            assertThat(pings).as("pings before the close").isEqualTo(HeartbeatHandler.SILENT_INTERVALS - 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
        }
    }
}
