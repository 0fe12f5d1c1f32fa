package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.protocol.codec.Frame;
import io.xrpc.protocol.codec.FrameDecoder;
import io.xrpc.protocol.codec.MemoryBudget;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.RawPeer;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One memory budget for the whole server. Before: per-connection limits multiplied by the
 * connections, and 110 connections each holding an almost complete 8 MiB frame took a server to
 * {@code OutOfMemoryError: Cannot reserve 8257584 bytes of direct buffer memory}.
 */
@Timeout(90)
class MemoryBudgetTest {
    private static final int MIB = 1024 * 1024;

    private static byte[] largeRequest(long id, int stringLength) throws Exception {
        ByteArrayOutputStream args = new ByteArrayOutputStream();
        new KryoSerializerProvider()
                .create(ClassAllowList.withDefaults(), ReadLimits.defaults())
                .writeArguments(new Object[] {"x".repeat(stringLength)}, args);
        return RawPeer.request(
                id, Codecs.KRYO_ID, 60_000, GateService.class.getName(), "quick(java.lang.String)", args.toByteArray());
    }

    @Test
    void peersSendingTwiceTheBudgetInPartialFramesLeaveTheServerWithinItAndOthersServed() throws Exception {
        long budget = 16L * MIB;
        byte[] frame = largeRequest(1, 7 * MIB);
        int held = frame.length - 1024; // almost complete: the last KiB never comes until the end
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .maxRequestMemory(budget)
                        .frameTimeout(Duration.ofSeconds(60))
                        .service(GateService.class, new GateServiceImpl("g"))
                        .build()
                        .start();
                RpcClient good = RpcClient.builder().build()) {
            List<RawPeer> peers = new ArrayList<>();
            try {
                // Five peers of 7 MiB each, one after the other: 35 MiB, over twice the budget.
                for (int i = 0; i < 5; i++) {
                    RawPeer p = new RawPeer(server.endpoint().port());
                    p.send(Arrays.copyOf(frame, held));
                    peers.add(p);
                    if (i < 2) { // fits: held once the server has read it
                        long atLeast = (i + 1) * (long) (held - ProtocolConstants.HEADER_LENGTH);
                        await().atMost(Duration.ofSeconds(20)).until(() -> server.requestMemoryBytes() >= atLeast);
                    } else { // does not: answered at once, not read, safe to send elsewhere
                        RawPeer.Reply r = p.read();
                        assertThat(r.type()).isEqualTo(MessageType.RESPONSE.code());
                        assertThat(r.status()).isEqualTo(RpcStatus.SERVER_BUSY.code());
                        assertThat(r.message()).contains("memory budget for requests in transit (16777216 bytes)");
                    }
                    assertThat(server.requestMemoryBytes()).isLessThanOrEqualTo(budget);
                }
                assertThat(server.requestMemoryBytes())
                        .isLessThanOrEqualTo(budget)
                        .isGreaterThan(13L * MIB);
                GateService gate = good.proxy(
                        GateService.class,
                        ReferenceOptions.builder().address(server.endpoint()).build());
                assertThat(gate.quick("small calls go on")).isEqualTo("small calls go on");

                // The refused peers' bytes are skipped as they come: they finish their frames, and
                // their connections stay usable.
                for (RawPeer p : peers.subList(2, 5)) {
                    p.send(Arrays.copyOfRange(frame, held, frame.length));
                    p.send(RawPeer.request(
                            2, Codecs.KRYO_ID, 5000, GateService.class.getName(), "whoAmI()", new byte[0]));
                    assertThat(p.read().status()).isEqualTo(RpcStatus.OK.code());
                }
                // The two held frames complete and run; then the budget is free again.
                for (RawPeer p : peers.subList(0, 2)) {
                    p.send(Arrays.copyOfRange(frame, held, frame.length));
                    RawPeer.Reply r = p.read();
                    assertThat(r.status()).isEqualTo(RpcStatus.OK.code());
                    assertThat(r.body().length).isGreaterThan(7 * MIB);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> server.requestMemoryBytes() == 0);
            } finally {
                for (RawPeer p : peers) {
                    p.close();
                }
            }
        }
    }

    @Test
    void aPartialFrameGivesItsReservationBackWhenItsConnectionCloses() throws Exception {
        MemoryBudget budget = new MemoryBudget(MIB);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(8 * MIB, 0, budget));
        byte[] frame = largeRequest(3, 100_000);
        ch.writeInbound(Unpooled.wrappedBuffer(frame, 0, 50_000));
        assertThat(budget.used())
                .as("the bytes that came, not the length claimed")
                .isEqualTo(50_000 - ProtocolConstants.HEADER_LENGTH);
        ch.close();
        assertThat(budget.used()).isZero();

        EmbeddedChannel again = new EmbeddedChannel(new FrameDecoder(8 * MIB, 0, budget));
        again.writeInbound(Unpooled.wrappedBuffer(frame));
        Frame f = again.readInbound();
        assertThat(f.isOverBudget()).isFalse();
        assertThat(budget.used()).as("held until the request is released").isGreaterThan(0);
        f.release();
        assertThat(budget.used()).isZero();
        again.finishAndReleaseAll();
    }

    /** A header claiming 8 MiB reserves nothing until the bytes come: headers alone cannot fill the budget. */
    @Test
    void headersAloneReserveNothing() throws Exception {
        MemoryBudget budget = new MemoryBudget(MIB);
        byte[] frame = largeRequest(6, 7 * MIB);
        List<EmbeddedChannel> channels = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(8 * MIB, 0, budget));
            ch.writeInbound(Unpooled.wrappedBuffer(frame, 0, ProtocolConstants.HEADER_LENGTH));
            channels.add(ch);
        }
        assertThat(budget.used()).isZero();
        for (EmbeddedChannel ch : channels) {
            Assertions.assertThatThrownBy(ch::finishAndReleaseAll)
                    .hasMessageContaining("connection closed in the middle of a frame");
        }
    }

    @Test
    void aRequestThatDoesNotFitIsPassedOnUnreadAndItsBytesSkipped() throws Exception {
        MemoryBudget budget = new MemoryBudget(64 * 1024);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(8 * MIB, 0, budget));
        byte[] big = largeRequest(4, 100_000);
        byte[] small = RawPeer.request(5, Codecs.KRYO_ID, 5000, GateService.class.getName(), "whoAmI()", new byte[0]);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 30_000));
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(budget.used()).isEqualTo(30_000 - ProtocolConstants.HEADER_LENGTH);
        // More of it than fits, then the rest, then a small request: it is refused unread as its
        // bytes pass the budget, its reservation is given back, and only the small one is read.
        byte[] rest = Arrays.copyOfRange(big, 30_000, 80_000);
        ch.writeInbound(Unpooled.wrappedBuffer(rest));
        Frame refused = ch.readInbound();
        assertThat(refused.isOverBudget()).isTrue();
        assertThat(refused.requestId()).isEqualTo(4);
        assertThat(refused.body().readableBytes()).isZero();
        refused.release();
        assertThat(budget.used()).isZero();
        byte[] tail = Arrays.copyOfRange(big, 80_000, big.length);
        byte[] both = new byte[tail.length + small.length];
        System.arraycopy(tail, 0, both, 0, tail.length);
        System.arraycopy(small, 0, both, tail.length, small.length);
        ch.writeInbound(Unpooled.wrappedBuffer(both));
        Frame next = ch.readInbound();
        assertThat(next.requestId()).isEqualTo(5);
        assertThat(next.isOverBudget()).isFalse();
        next.release();
        assertThat(budget.used()).isZero();
        assertThat((Object) ch.readInbound()).isNull();
        ch.finishAndReleaseAll();
    }

    /** Before: once a refused request's bytes were being skipped, no frame clock ran, and a peer could trickle them forever. */
    @Test
    void aRefusedRequestsBytesMustStillArriveWithinTheFrameTimeout() throws Exception {
        MemoryBudget budget = new MemoryBudget(32 * 1024);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(8 * MIB, 100, budget));
        try {
            byte[] big = largeRequest(7, 100_000);
            ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 50_000));
            Frame refused = ch.readInbound();
            assertThat(refused.isOverBudget()).isTrue();
            refused.release();
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            Assertions.assertThatThrownBy(ch::checkException)
                    .hasMessageContaining("frame timeout of 100 ms")
                    .hasMessageContaining("more bytes of a request refused for the memory budget");
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
