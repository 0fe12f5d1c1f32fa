package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.DeadlineWaitingSerializerProvider;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.RecordingGzipCompressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.GZIPOutputStream;
import org.assertj.core.api.Assertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests whose reading a peer can make expensive at will: compressed bodies and malformed ones.
 * An unauthenticated peer makes the server inflate nothing, one connection's expensive reads get a
 * share of the machine, and a connection that keeps sending garbage is closed.
 */
@Timeout(60)
class ExpensiveRequestsTest {
    private static final String SERVICE = GateService.class.getName();

    /** A compressed request as XRpc writes it: the head plain, then {@code compressed}, no clock stamp. */
    private static byte[] compressedRequest(long id, String signature, byte[] compressed) {
        byte[] frame = RawPeer.frame(
                MessageType.REQUEST,
                Codecs.KRYO_ID,
                id,
                5000,
                RawPeer.requestBody(SERVICE, signature, compressed)); // no attachments: no credentials
        frame[ProtocolConstants.OFFSET_COMPRESSOR] = new RecordingGzipCompressor().id();
        frame[ProtocolConstants.OFFSET_FLAGS] = ProtocolConstants.FLAG_COMPRESSED;
        return frame;
    }

    /** About 9 KiB of gzip that inflates to 9 MiB of zeros, past the 8 MiB frame limit. */
    private static byte[] gzipBomb() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 9; i++) {
                z.write(zeros);
            }
        }
        return out.toByteArray();
    }

    /**
     * Before: a compressed body was inflated to find its head, so a 9,300-byte bomb without
     * credentials was answered SERIALIZATION_ERROR after inflating 8 MiB: about 900:1 of CPU spent
     * for an unknown peer. The head now travels plain and the authenticator runs first.
     */
    @Test
    void aCompressedRequestWithoutCredentialsIsRefusedWithoutInflatingAByte() throws Exception {
        RecordingGzipCompressor.DECOMPRESSED_ON.clear();
        byte[] bomb = gzipBomb();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .authenticator((credentials, service, method, peer) ->
                                credentials == null ? "credentials required" : null)
                        .service(GateService.class, new GateServiceImpl("guarded"))
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.endpoint().port())) {
            peer.send(compressedRequest(7, "quick(java.lang.String)", bomb));
            RawPeer.Reply reply = peer.read();
            assertThat(reply.requestId()).isEqualTo(7);
            assertThat(reply.status()).isEqualTo(RpcStatus.UNAUTHENTICATED.code());
            assertThat(reply.message()).contains("credentials required");
            assertThat(RecordingGzipCompressor.DECOMPRESSED_ON)
                    .as("inflated before authenticating")
                    .isEmpty();
        }
    }

    @Test
    void compressedCallsStillWorkBothWaysAndABombIsRefusedAfterAuthentication() throws Exception {
        RecordingGzipCompressor.DECOMPRESSED_ON.clear();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .compressThreshold(0)
                        .service(GateService.class, new GateServiceImpl("plain"))
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().compressThreshold(0).build();
                RawPeer peer = new RawPeer(server.endpoint().port())) {
            GateService gate = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .compressor("recording-gzip")
                            .build());
            String big = "x".repeat(50_000);
            assertThat(gate.quick(big)).isEqualTo(big);
            assertThat(RecordingGzipCompressor.DECOMPRESSED_ON).hasSize(2); // the request and the answer

            peer.send(compressedRequest(8, "quick(java.lang.String)", gzipBomb()));
            RawPeer.Reply reply = peer.read();
            assertThat(reply.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(reply.message()).contains("decompresses to more than the limit of 8388608 bytes");
            assertThat(gate.quick("after")).isEqualTo("after");
        }
    }

    /**
     * One connection's reads that may cost much (compressed or large bodies) run at most
     * {@link ServerChannelHandler#MAX_EXPENSIVE_READS} at a time; the rest wait unread. The
     * slow-reader serializer holds each read until its call's deadline: with every read at once,
     * all of them would be read; with the share, the last is admitted only after its deadline
     * passed, and is answered without being read.
     */
    @Test
    void oneConnectionsExpensiveReadsTakeTheirShareAndNoMore() throws Exception {
        int share = Admission.MAX_EXPENSIVE_READS;
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .compressThreshold(0)
                        .service(GateService.class, new GateServiceImpl("g"))
                        .build()
                        .start();
                RpcClient heavy = RpcClient.builder().compressThreshold(0).build();
                RpcClient other = RpcClient.builder().build()) {
            GateService slow = heavy.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .serializer("slow-reader")
                            .compressor("recording-gzip")
                            .retries(0)
                            .timeout(Duration.ofMillis(1500))
                            .build());
            // The one past the share has the shorter deadline, so that it has surely expired when a
            // reading slot frees. With equal deadlines the test failed once in a full run (two
            // reads, not one): the one waiting had the others' deadline give or take the moment
            // between their sending, and, handed the slot within that moment, was read.
            GateService extra = heavy.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .address(server.endpoint())
                            .serializer("slow-reader")
                            .compressor("recording-gzip")
                            .retries(0)
                            .timeout(Duration.ofMillis(500))
                            .build());
            // Connected first, so that the calls below reach the server in the order made.
            assertThat(heavy.proxy(
                                    GateService.class,
                                    ReferenceOptions.builder()
                                            .address(server.endpoint())
                                            .build())
                            .quick("connect"))
                    .isEqualTo("connect");
            int readsBefore = DeadlineWaitingSerializerProvider.READS.get();
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 0; i < share; i++) {
                calls.add(slow.passAsync("t" + i));
            }
            calls.add(extra.passAsync("t" + share));
            // Meanwhile another connection is served at once.
            GateService quick = other.proxy(
                    GateService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(quick.quick("meanwhile")).isEqualTo("meanwhile");
            for (CompletableFuture<String> c : calls) {
                assertThat(Assertions.catchThrowable(c::join))
                        .isInstanceOf(CompletionException.class)
                        .cause()
                        .isInstanceOfSatisfying(
                                RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> server.inFlight() == 0);
            assertThat(DeadlineWaitingSerializerProvider.READS.get() - readsBefore)
                    .isEqualTo(share);
        }
    }

    @Test
    void aConnectionThatKeepsSendingGarbageIsClosedNamingWhy() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(GateService.class, new GateServiceImpl("g"))
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.endpoint().port());
                RpcClient good = RpcClient.builder().build()) {
            byte[] garbage = {(byte) 0xFF, (byte) 0xFE, 0x01, 0x02};
            for (int i = 1; i <= MalformedStrikes.MAX_IN_A_ROW; i++) {
                peer.send(RawPeer.request(i, Codecs.KRYO_ID, 5000, SERVICE, "quick(java.lang.String)", garbage));
            }
            List<RawPeer.Reply> replies = new ArrayList<>();
            RawPeer.Reply r;
            do {
                r = peer.read();
                replies.add(r);
            } while (r.type() != MessageType.GOAWAY.code());
            assertThat(replies).hasSize(MalformedStrikes.MAX_IN_A_ROW + 1);
            assertThat(replies.subList(0, replies.size() - 1))
                    .allSatisfy(reply -> assertThat(reply.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code()));
            assertThat(r.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(r.message()).contains("10 requests in a row were malformed", "cannot read the arguments");
            assertThat(peer.readUntilClosed()).isEmpty();
            // Everyone else is served as before.
            GateService gate = good.proxy(
                    GateService.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());
            assertThat(gate.quick("fine")).isEqualTo("fine");
        }
    }

    @Test
    void wellFormedCallsBetweenBadOnesKeepTheConnection() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .service(GateService.class, new GateServiceImpl("g"))
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.endpoint().port())) {
            byte[] garbage = {(byte) 0xFF, (byte) 0xFE, 0x01, 0x02};
            ByteArrayOutputStream ok = new ByteArrayOutputStream();
            new KryoSerializerProvider()
                    .create(ClassAllowList.withDefaults(), ReadLimits.defaults())
                    .writeArguments(new Object[] {"fine"}, ok);
            for (int i = 1; i <= 3 * MalformedStrikes.MAX_IN_A_ROW; i++) {
                byte[] args = i % 5 == 0 ? ok.toByteArray() : garbage;
                peer.send(RawPeer.request(i, Codecs.KRYO_ID, 5000, SERVICE, "quick(java.lang.String)", args));
                RawPeer.Reply reply = peer.read();
                assertThat(reply.type()).isEqualTo(MessageType.RESPONSE.code());
                assertThat(reply.status())
                        .isEqualTo(i % 5 == 0 ? RpcStatus.OK.code() : RpcStatus.SERIALIZATION_ERROR.code());
            }
        }
    }
}
