package io.xrpc.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.Flows;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.StreamService;
import io.xrpc.testing.StreamService.Tick;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The caller's side against a provider written by hand: one from before streams, one that dies
 * mid-stream, one that breaks the stream's rules. Each costs the caller only that call, and each
 * failure says what happened.
 */
@Timeout(60)
class StreamProviderByHandTest {
    private static final Serializer KRYO =
            new KryoSerializerProvider().create(ClassAllowList.withDefaults(), ReadLimits.defaults());

    private ServerSocket listener;
    private RpcClient client;

    @BeforeEach
    void start() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        client = RpcClient.builder().build();
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        listener.close();
    }

    private StreamService service() {
        return client.proxy(
                StreamService.class,
                ReferenceOptions.builder()
                        .address(new Endpoint("127.0.0.1", listener.getLocalPort()))
                        .serializer("kryo")
                        .timeout(Duration.ofSeconds(20))
                        .retries(0)
                        .build());
    }

    /** Accepts the client's connection and reads its stream request. */
    private RawPeer acceptStream(RawPeer.Reply[] request) throws IOException {
        RawPeer p = new RawPeer(listener.accept());
        RawPeer.Reply r = p.read();
        assertThat(r.type()).isEqualTo(MessageType.REQUEST.code());
        request[0] = r;
        return p;
    }

    private static byte[] tick(long id, long seq) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KRYO.writeMessage(new Tick("H", seq, seq), Tick.class, out);
        return RawPeer.frame(MessageType.STREAM_MESSAGE, Codecs.KRYO_ID, id, 0, out.toByteArray());
    }

    private static byte[] accept(long id) {
        return RawPeer.credit(id, 0, 0);
    }

    @Test
    void theRequestSaysItIsAStreamAndAProviderFromBeforeStreamsIsToldApart() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service().ticks("OLD", 3).subscribe(r);
        RawPeer.Reply[] request = new RawPeer.Reply[1];
        try (RawPeer p = acceptStream(request)) {
            assertThat(new String(request[0].body(), StandardCharsets.ISO_8859_1))
                    .contains(ProtocolConstants.STREAM_ATTACHMENT);
            // An old provider runs it as a call of one answer, and answers OK with a value.
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            KRYO.writeResult("a publisher it could not send", out);
            p.send(RawPeer.frame(
                    MessageType.RESPONSE,
                    Codecs.KRYO_ID,
                    RpcStatus.OK.code(),
                    request[0].requestId(),
                    0,
                    out.toByteArray()));
            assertThat(r.await(20)).isTrue();
        }
        assertThat(r.items).isEmpty();
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.UNAVAILABLE);
            assertThat(e.getMessage()).contains("does not stream this method", "upgrade providers");
        });
    }

    @Test
    void aProviderThatDiesMidStreamEndsItSayingHowFarItGot() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service().ticks("DIE", 100).subscribe(r);
        RawPeer.Reply[] request = new RawPeer.Reply[1];
        try (RawPeer p = acceptStream(request)) {
            long id = request[0].requestId();
            p.send(accept(id));
            for (int i = 0; i < 3; i++) {
                p.send(tick(id, i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> r.items.size() == 3);
        } // the provider's connection closes here, its stream unfinished
        assertThat(r.await(20)).isTrue();
        assertThat(r.items).hasSize(3);
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.CONNECTION_CLOSED);
            assertThat(e.getMessage()).contains("its stream had 3 messages from it");
        });
    }

    @Test
    void aProviderSendingBeyondTheCreditItWasGrantedLosesTheStream() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(0); // asks for nothing: the first window is all it grants
        service().ticks("FLOOD", 1000).subscribe(r);
        RawPeer.Reply[] request = new RawPeer.Reply[1];
        try (RawPeer p = acceptStream(request)) {
            long id = request[0].requestId();
            p.send(accept(id));
            for (int i = 0; i <= ProtocolConstants.INITIAL_STREAM_MESSAGES; i++) {
                p.send(tick(id, i));
            }
            assertThat(r.await(20)).isTrue();
            RawPeer.Reply cancel = p.read();
            assertThat(cancel.type()).isEqualTo(MessageType.CANCEL.code());
            assertThat(cancel.requestId()).isEqualTo(id);
        }
        assertThat(r.items).isEmpty();
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.INTERNAL);
            assertThat(e.getMessage()).contains("beyond the credit");
        });
    }

    @Test
    void aNullMessageEndsTheStreamSayingWhichMessage() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(Long.MAX_VALUE);
        service().ticks("NULL", 5).subscribe(r);
        RawPeer.Reply[] request = new RawPeer.Reply[1];
        try (RawPeer p = acceptStream(request)) {
            long id = request[0].requestId();
            p.send(accept(id));
            p.send(tick(id, 0));
            p.send(RawPeer.frame(MessageType.STREAM_MESSAGE, Codecs.KRYO_ID, id, 0, new byte[0]));
            assertThat(r.await(20)).isTrue();
        }
        assertThat(r.items).hasSize(1);
        assertThat(r.error.get()).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
            assertThat(e.getMessage()).contains("message 2 is empty");
        });
    }

    @Test
    void aMessageAfterTheProvidersEndIsNotDelivered() throws Exception {
        Flows.Recorder<Tick> r = new Flows.Recorder<>(0);
        service().ticks("END", 5).subscribe(r);
        RawPeer.Reply[] request = new RawPeer.Reply[1];
        try (RawPeer p = acceptStream(request)) {
            long id = request[0].requestId();
            p.send(accept(id));
            p.send(tick(id, 0));
            p.send(RawPeer.frame(MessageType.STREAM_END, Codecs.KRYO_ID, RpcStatus.OK.code(), id, 0, new byte[0]));
            p.send(tick(id, 1));
            r.request(10); // it gets what came before the end, then the end: the message after it goes nowhere
            assertThat(r.await(20)).isTrue();
        }
        assertThat(r.items).extracting(Tick::seq).containsExactly(0L);
        assertThat(r.error.get()).isNull();
    }
}
