package io.xrpc.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.StreamService;
import io.xrpc.testing.StreamServiceImpl;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a peer that writes stream frames by hand can make a provider do: only what its credit
 * allows, on its own stream, and every refusal says what was wrong.
 */
@Timeout(60)
class StreamHostilePeerTest {
    private static final String SERVICE = StreamService.class.getName();
    private static final Serializer KRYO =
            new KryoSerializerProvider().create(ClassAllowList.withDefaults(), ReadLimits.defaults());

    private final StreamServiceImpl impl = new StreamServiceImpl();
    private RpcServer server;

    @BeforeEach
    void start() throws Exception {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(StreamService.class, impl)
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static byte[] arguments(Object... args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KRYO.writeArguments(args, out);
        return out.toByteArray();
    }

    private static byte[] message(long id, Object value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KRYO.writeMessage(value, value.getClass(), out);
        return RawPeer.frame(MessageType.STREAM_MESSAGE, Codecs.KRYO_ID, id, 0, out.toByteArray());
    }

    /** Opens {@code hold}, a client stream the provider never reads, and returns the credit it was granted. */
    private static RawPeer.Reply openHold(RawPeer p, long id) throws IOException {
        p.send(RawPeer.streamRequest(id, Codecs.KRYO_ID, 30_000, SERVICE, holdSignature(), arguments()));
        RawPeer.Reply credit = p.read();
        assertThat(credit.type()).isEqualTo(MessageType.CREDIT.code());
        assertThat(credit.requestId()).isEqualTo(id);
        return credit;
    }

    private static String holdSignature() {
        return "hold(java.util.concurrent.Flow$Publisher)";
    }

    private boolean serves() {
        try (RpcClient c = RpcClient.builder().build()) {
            return "pong x"
                    .equals(c.proxy(
                                    StreamService.class,
                                    ReferenceOptions.builder()
                                            .address(server.endpoint())
                                            .build())
                            .ping("x"));
        }
    }

    @Test
    void aCallerSendingBeyondItsCreditLosesThatStreamWithASayingError() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            RawPeer.Reply credit = openHold(p, 7);
            int granted = ByteBuffer.wrap(credit.body()).getInt();
            assertThat(granted).isEqualTo(ProtocolConstants.INITIAL_STREAM_MESSAGES);
            for (int i = 0; i <= granted; i++) {
                p.send(message(7, "m" + i));
            }
            RawPeer.Reply end = p.read();
            assertThat(end.type()).isEqualTo(MessageType.STREAM_END.code());
            assertThat(end.requestId()).isEqualTo(7);
            assertThat(end.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED.code());
            assertThat(end.message()).contains("beyond the credit");
            assertThat(impl.held.get()).isEqualTo(1);
        }
        assertThat(serves()).isTrue();
    }

    @Test
    void aMessageAfterTheCallersOwnEndEndsTheStream() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            openHold(p, 8);
            p.send(message(8, "last"));
            p.send(RawPeer.frame(MessageType.STREAM_END, Codecs.KRYO_ID, 8, 0, new byte[0]));
            p.send(message(8, "after the end"));
            RawPeer.Reply end = p.read();
            assertThat(end.type()).isEqualTo(MessageType.STREAM_END.code());
            assertThat(end.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED.code());
            assertThat(end.message()).contains("after its own STREAM_END");
        }
    }

    @Test
    void aCallerWithoutTheStreamAttachmentIsToldToUpgradeAndNothingRuns() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            p.send(RawPeer.request(3, Codecs.KRYO_ID, 30_000, SERVICE, holdSignature(), arguments()));
            RawPeer.Reply r = p.read();
            assertThat(r.type()).isEqualTo(MessageType.RESPONSE.code());
            assertThat(r.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(r.message()).contains("stream", "upgrade");
        }
        assertThat(impl.held.get()).isZero();
    }

    @Test
    void aMalformedCreditEndsThatStreamOnly() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            p.send(RawPeer.streamRequest(
                    5, Codecs.KRYO_ID, 30_000, SERVICE, "endless(java.lang.String)", arguments("E")));
            RawPeer.Reply accepted = p.read();
            assertThat(accepted.type()).isEqualTo(MessageType.CREDIT.code());
            // A message first: the feed runs. (A stream ended before its implementation ran is
            // never run at all, and then there is no feed to cancel.)
            assertThat(p.read().type()).isEqualTo(MessageType.STREAM_MESSAGE.code());
            p.send(RawPeer.frame(MessageType.CREDIT, (byte) 0, 5, 0, new byte[] {0, 0, 1}));
            RawPeer.Reply r;
            do {
                r = p.read(); // the rest of the feed's first window may come first
            } while (r.type() == MessageType.STREAM_MESSAGE.code());
            assertThat(r.type()).isEqualTo(MessageType.STREAM_END.code());
            assertThat(r.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED.code());
            assertThat(r.message()).contains("malformed credit", "3 bytes");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
        assertThat(serves()).isTrue();
    }

    @Test
    void aMessageToAStreamThatTakesNoneEndsIt() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            p.send(RawPeer.streamRequest(
                    9, Codecs.KRYO_ID, 30_000, SERVICE, "endless(java.lang.String)", arguments("E")));
            assertThat(p.read().type()).isEqualTo(MessageType.CREDIT.code());
            p.send(message(9, "unasked"));
            RawPeer.Reply r;
            do {
                r = p.read();
            } while (r.type() == MessageType.STREAM_MESSAGE.code());
            assertThat(r.type()).isEqualTo(MessageType.STREAM_END.code());
            assertThat(r.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED.code());
            assertThat(r.message()).contains("takes none");
        }
    }

    @Test
    void aPeerThatNeverReadsGetsOneWindowPerStreamAndNoMore() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port(), 4096)) {
            for (long id = 1; id <= 10; id++) {
                p.send(RawPeer.streamRequest(
                        id, Codecs.KRYO_ID, 60_000, SERVICE, "endless(java.lang.String)", arguments("E" + id)));
            }
            // Ten streams, each granted its first window by the request: as many ticks made as the
            // windows and the connection's room for streams allow, then none.
            await().atMost(Duration.ofSeconds(20)).until(() -> impl.produced.get() > 0);
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        long now = impl.produced.get();
                        boolean flat = now == last[0];
                        last[0] = now;
                        return flat;
                    });
            assertThat(impl.produced.get()).isLessThanOrEqualTo(10L * ProtocolConstants.INITIAL_STREAM_MESSAGES);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 10);
        assertThat(serves()).isTrue();
    }

    @Test
    void aPeerGrantingEverythingAndReadingNothingCostsTheProviderAboutAWindow() throws Exception {
        int blob = 64 * 1024;
        try (RawPeer p = new RawPeer(server.endpoint().port(), 4096)) {
            p.send(RawPeer.streamRequest(1, Codecs.KRYO_ID, 60_000, SERVICE, "blobs(int)", arguments(blob)));
            p.send(RawPeer.credit(1, Integer.MAX_VALUE, Integer.MAX_VALUE)); // a lie: it reads nothing
            await().atMost(Duration.ofSeconds(10)).until(() -> impl.blobsProduced.get() > 32);
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        long now = impl.blobsProduced.get();
                        boolean flat = now == last[0];
                        last[0] = now;
                        return flat;
                    });
            // What the producer made sits in the socket buffers, the channel, the stream lane
            // (256 KiB) and the stream's own items in hand: some megabytes, not the 2^31 granted.
            assertThat(impl.blobsProduced.get() * blob).isLessThan(64L * 1024 * 1024);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
        assertThat(serves()).isTrue();
    }

    @Test
    void aSecondRequestUnderAnIdInFlightIsRefusedAndTheFirstGoesOn() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            p.send(RawPeer.streamRequest(
                    4, Codecs.KRYO_ID, 60_000, SERVICE, "endless(java.lang.String)", arguments("A")));
            assertThat(p.read().type()).isEqualTo(MessageType.CREDIT.code());
            assertThat(p.read().type()).isEqualTo(MessageType.STREAM_MESSAGE.code()); // its feed runs
            p.send(RawPeer.streamRequest(
                    4, Codecs.KRYO_ID, 60_000, SERVICE, "endless(java.lang.String)", arguments("B")));
            RawPeer.Reply r;
            do {
                r = p.read(); // the first stream's window comes meanwhile
            } while (r.type() == MessageType.STREAM_MESSAGE.code());
            assertThat(r.type()).isEqualTo(MessageType.RESPONSE.code());
            assertThat(r.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(r.message()).contains("request id 4 is already in use");
        }
        // The first stream was still the connection's: its close ended it.
        await().atMost(Duration.ofSeconds(10)).until(() -> impl.cancelledFeeds.get() == 1);
    }

    @Test
    void streamFramesOfNoOpenCallAreDroppedAndTheConnectionServes() throws Exception {
        try (RawPeer p = new RawPeer(server.endpoint().port())) {
            p.send(message(404, "nobody"));
            p.send(RawPeer.credit(405, 1000, 1 << 20));
            p.send(RawPeer.frame(MessageType.STREAM_END, Codecs.KRYO_ID, 406, 0, new byte[0]));
            p.send(RawPeer.request(1, Codecs.KRYO_ID, 30_000, SERVICE, "ping(java.lang.String)", arguments("raw")));
            RawPeer.Reply r = p.read();
            assertThat(r.requestId()).isEqualTo(1);
            assertThat(r.status()).isEqualTo(RpcStatus.OK.code());
        }
    }
}
