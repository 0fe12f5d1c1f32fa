package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.TypesService;
import io.xrpc.testing.TypesServiceImpl;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Heartbeats keep a quiet but live connection open, and close one whose peer went silent. */
class HeartbeatTest {

    @Test
    void anIdleConnectionBetweenLivePeersOutlivesManyIntervals() throws Exception {
        Duration hb = Duration.ofMillis(100);
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .heartbeatInterval(hb)
                        .service(TypesService.class, new TypesServiceImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().heartbeatInterval(hb).build()) {
            TypesService s = client.proxy(
                    TypesService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(s.echo("a")).isEqualTo("a");
            // Ten intervals with no call: each side hears the other's pings and pongs, so neither
            // takes the other for dead.
            await().during(Duration.ofMillis(10 * hb.toMillis()))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> server.connectionCount() == 1 && client.openConnections() == 1);
            assertThat(s.echo("b")).isEqualTo("b");
        }
    }

    @Test
    void aServerThatStoppedReadingForItsOwnBacklogKeepsItsClientUpForManyIntervals() throws Exception {
        Duration hb = Duration.ofMillis(100);
        HostilePeerTest.BulkImpl impl = new HostilePeerTest.BulkImpl();
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .heartbeatInterval(hb)
                        .writeBufferWaterMark(128 * 1024, 256 * 1024)
                        .service(HostilePeerTest.Bulk.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().heartbeatInterval(hb).build()) {
            HostilePeerTest.Bulk s = client.proxy(
                    HostilePeerTest.Bulk.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .timeout(Duration.ofSeconds(30))
                            .build());
            assertThat(s.big(200_000)).hasSize(200_000); // the method's answer size is known now
            impl.bigGate = new CountDownLatch(1);
            Future<byte[]> running = callers.submit(() -> s.big(200_000));
            await().atMost(Duration.ofSeconds(10)).until(() -> impl.bigRuns.get() == 2);
            // Its answer would not fit beside the running one's: it waits, and the server stops
            // reading this connection until the first is answered.
            Future<byte[]> waiting = callers.submit(() -> s.big(200_000));
            await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 2);
            // Ten intervals of the server reading nothing: it goes on pinging, the client hears it
            // and neither side takes the other for dead.
            await().during(Duration.ofMillis(10 * hb.toMillis()))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> server.connectionCount() == 1 && client.openConnections() == 1);
            impl.bigGate.countDown();
            assertThat(running.get(10, TimeUnit.SECONDS)).hasSize(200_000);
            assertThat(waiting.get(10, TimeUnit.SECONDS)).hasSize(200_000);
        } finally {
            impl.bigGate.countDown();
            callers.shutdownNow();
        }
    }

    @Test
    void theIntervalsThisSideDidNotReadAreNotCountedAgainstThePeer() {
        // Seen once in the suite: the test above lost its connection ("Connection reset by peer")
        // when, after ten paused intervals, the first answer made the connection briefly unwritable
        // as a reader-idle event came: the silence of the pause counted as the peer's, and the
        // server closed a live connection at once.
        EmbeddedChannel ch = new EmbeddedChannel(HeartbeatHandler.INSTANCE);
        try {
            ch.config().setAutoRead(false); // this side stopped reading while the peer's calls run
            ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
            for (int i = 0; i < 9; i++) {
                ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
            }
            assertThat(ch.isOpen()).as("paused: pings, never closes").isTrue();
            // An answer larger than the high-water mark is queued: the connection is not writable
            // until the peer has read it.
            ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1, 2));
            for (int i = 1; i <= HeartbeatHandler.SILENT_INTERVALS; i++) {
                // (this channel hands on what is flushed at once, so the unread answer is queued again)
                ch.write(Unpooled.buffer(16).writeZero(16));
                assertThat(ch.isWritable()).isFalse();
                assertThat(ch.isOpen())
                        .as("%d silent intervals of the peer's own, not %d", i - 1, i + 9)
                        .isTrue();
                ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
            }
            assertThat(ch.isOpen())
                    .as("three intervals of the peer not reading: presumed dead")
                    .isFalse();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aPeerThatSendsNothingIsPingedTwiceThenClosed() throws Exception {
        Duration hb = Duration.ofMillis(100);
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .heartbeatInterval(hb)
                        .service(TypesService.class, new TypesServiceImpl())
                        .build()
                        .start();
                RawPeer silent = new RawPeer(server.port())) {
            InputStream in = silent.socket.getInputStream();
            byte[] got = in.readAllBytes(); // returns once the server has closed the connection
            ByteBuffer frames = ByteBuffer.wrap(got);
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
