package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.esotericsoftware.kryo.io.Output;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.ServiceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.Boom;
import io.xrpc.testing.Calm;
import io.xrpc.testing.Codecs;
import io.xrpc.testing.DeadlineWaitingSerializerProvider;
import io.xrpc.testing.RawPeer;
import io.xrpc.testing.RecordingGzipCompressor;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Peers that attack a provider over real sockets, or a provider that attacks its client. Each
 * costs only its own call or connection; the providers keep answering everyone else.
 */
class HostilePeerTest {
    public interface Bulk {
        byte[] big(int size);

        String quick(String s);

        int length(Object value);

        CompletableFuture<Integer> lengthAsync(Object value);
    }

    static final class BulkImpl implements Bulk {
        final AtomicInteger bigRuns = new AtomicInteger();
        final AtomicInteger lengthRuns = new AtomicInteger();
        /** Holds big() until opened; open unless a test closes it. */
        volatile CountDownLatch bigGate = new CountDownLatch(0);

        @Override
        public byte[] big(int size) {
            bigRuns.incrementAndGet();
            try {
                bigGate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new byte[size];
        }

        @Override
        public String quick(String s) {
            return s;
        }

        @Override
        public int length(Object value) {
            lengthRuns.incrementAndGet();
            return String.valueOf(value).length();
        }

        @Override
        public CompletableFuture<Integer> lengthAsync(Object value) {
            return CompletableFuture.completedFuture(length(value));
        }
    }

    private static final String SERVICE = Bulk.class.getName();

    private static byte[] kryo(Object... args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new KryoSerializerProvider()
                .create(ClassAllowList.withDefaults(), ReadLimits.defaults())
                .writeArguments(args, out);
        return out.toByteArray();
    }

    private static Bulk proxy(RpcClient client, RpcServer server, ReferenceOptions.Builder options) {
        return client.proxy(Bulk.class, options.address(server.endpoint()).build());
    }

    @Test
    void anAllocationBombInTheArgumentsIsAnsweredSerializationErrorNamingTheClaim() throws Exception {
        BulkImpl impl = new BulkImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(Bulk.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build();
                RawPeer peer = new RawPeer(server.port())) {
            byte[] valid = kryo((Object) new byte[0]);
            Output claim = new Output(8);
            claim.writeVarInt((1 << 30) + 1, true);
            byte[] bomb = concat(Arrays.copyOf(valid, valid.length - 1), claim.toBytes());
            peer.send(RawPeer.request(1, Codecs.KRYO_ID, 5000, SERVICE, "length(java.lang.Object)", bomb));
            RawPeer.Reply r = peer.read();
            assertThat(r.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(r.message()).contains("length(java.lang.Object)", "kryo", "byte[] claims 1073741824 elements");
            // Hessian's 11 bytes on the same connection.
            byte[] hessian = {'V', 0x04, '[', 'i', 'n', 't', 'I', 0x01, 0x00, 0x00, 0x00};
            peer.send(RawPeer.request(2, (byte) 2, 5000, SERVICE, "length(java.lang.Object)", hessian));
            RawPeer.Reply h = peer.read();
            assertThat(h.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR.code());
            assertThat(h.message()).contains("int[] claims 16777216 elements");
            assertThat(impl.lengthRuns).hasValue(0);
            assertThat(proxy(client, server, ReferenceOptions.builder()).quick("still fine"))
                    .isEqualTo("still fine");
        }
    }

    @Test
    void aRequestSentBeforeTheGoawayArrivedIsAnsweredNotReset() throws Exception {
        BulkImpl impl = new BulkImpl();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .shutdownGrace(Duration.ofSeconds(20))
                .service(Bulk.class, impl)
                .build()
                .start();
        CompletableFuture<Void> closing;
        try (RawPeer peer = new RawPeer(server.port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 1);
            closing = CompletableFuture.runAsync(server::close);
            assertThat(peer.read().type()).isEqualTo(MessageType.GOAWAY.code());
            // What a client sent while the GOAWAY was on its way. The server used to close the
            // connection at once (nothing was in flight), and the request met a reset.
            peer.send(RawPeer.request(3, Codecs.KRYO_ID, 5000, SERVICE, "quick(java.lang.String)", kryo("x")));
            RawPeer.Reply r = peer.read();
            assertThat(r.requestId()).isEqualTo(3);
            assertThat(r.status()).isEqualTo(RpcStatus.UNAVAILABLE.code());
            assertThat(r.message()).contains("shutting down");
            assertThat(closing).isNotDone(); // it waits for the client to close, up to the grace
        }
        closing.get(10, TimeUnit.SECONDS);
        assertThat(server.connectionCount()).isZero();
    }

    @Test
    void requestsHeldBackForAdmissionWhenTheServerStopsAreStillReadAndAnswered() throws Exception {
        BulkImpl impl = new BulkImpl();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .shutdownGrace(Duration.ofSeconds(20))
                .writeBufferWaterMark(128 * 1024, 256 * 1024)
                .service(Bulk.class, impl)
                .build()
                .start();
        CompletableFuture<Void> closing;
        try (RawPeer peer = new RawPeer(server.port())) {
            peer.send(RawPeer.request(1, Codecs.KRYO_ID, 30_000, SERVICE, "big(int)", kryo(200_000)));
            assertThat(peer.read().body().length).isGreaterThan(200_000); // the method's answer size is known now
            impl.bigGate = new CountDownLatch(1);
            peer.send(RawPeer.request(2, Codecs.KRYO_ID, 30_000, SERVICE, "big(int)", kryo(200_000)));
            // Its answer would not fit beside the running one's: it waits, and reading pauses.
            peer.send(RawPeer.request(3, Codecs.KRYO_ID, 30_000, SERVICE, "big(int)", kryo(200_000)));
            await().atMost(Duration.ofSeconds(10)).until(() -> server.inFlight() == 2);
            // Stays in the socket while reading is paused. The server used to leave reading paused
            // at shutdown, so this was never answered and the connection was reset under it.
            peer.send(RawPeer.request(4, Codecs.KRYO_ID, 30_000, SERVICE, "quick(java.lang.String)", kryo("x")));
            closing = CompletableFuture.runAsync(server::close);
            Map<Long, RawPeer.Reply> answers = new HashMap<>();
            while (!answers.containsKey(3L) || !answers.containsKey(4L)) {
                RawPeer.Reply r = peer.read();
                if (r.type() == MessageType.RESPONSE.code()) {
                    answers.put(r.requestId(), r);
                }
            }
            for (long id : new long[] {3, 4}) {
                assertThat(answers.get(id).status()).as("request " + id).isEqualTo(RpcStatus.UNAVAILABLE.code());
                assertThat(answers.get(id).message()).containsAnyOf("shutting down", "shut down before running");
            }
            impl.bigGate.countDown();
            RawPeer.Reply running = peer.read();
            assertThat(running.requestId()).isEqualTo(2);
            assertThat(running.status()).isEqualTo(RpcStatus.OK.code());
        }
        closing.get(10, TimeUnit.SECONDS);
        assertThat(impl.bigRuns).hasValue(2);
    }

    @Test
    void anInterruptedCloseStillShutsEverythingDown() throws Exception {
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .shutdownGrace(Duration.ofSeconds(20))
                .service(Bulk.class, new BulkImpl())
                .build()
                .start();
        try (RawPeer idle = new RawPeer(server.port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 1);
            Thread.currentThread().interrupt();
            try {
                server.close(); // stops waiting for the idle peer, but not shutting down
            } finally {
                assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
            }
            // Used to return at once with the connection open and the event loops alive.
            assertThat(server.connectionCount()).isZero();
            assertThat(idle.read().type()).isEqualTo(MessageType.GOAWAY.code());
            assertThat(idle.readUntilClosed()).isEmpty();
        }
    }

    @Test
    void aServiceNameOfSixtyFourKilobytesIsNotEchoedWhole() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(Bulk.class, new BulkImpl())
                        .build()
                        .start();
                RawPeer peer = new RawPeer(server.port())) {
            peer.send(RawPeer.request(7, Codecs.KRYO_ID, 5000, "x".repeat(65_000), "quick()", new byte[0]));
            RawPeer.Reply r = peer.read();
            assertThat(r.status()).isEqualTo(RpcStatus.SERVICE_NOT_FOUND.code());
            assertThat(r.message()).hasSizeLessThan(1000).contains("(65000 chars)");
        }
    }

    @Test
    void aServiceThatAcceptsOnlyHessianRefusesKryoNamingWhatItAccepts() {
        BulkImpl impl = new BulkImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(
                                Bulk.class,
                                impl,
                                ServiceOptions.builder().serializers("hessian").build())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            assertThatThrownBy(() -> proxy(
                                    client, server, ReferenceOptions.builder().serializer("kryo"))
                            .length("x"))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                        assertThat(e.getMessage())
                                .contains("accepts only the serializers [hessian]", "the request used kryo");
                    });
            assertThat(impl.lengthRuns).hasValue(0);
            assertThat(proxy(client, server, ReferenceOptions.builder().serializer("hessian"))
                            .length("abc"))
                    .isEqualTo(3);
        }
    }

    @Test
    void anUnknownSerializerNameInServiceOptionsFailsAtExport() {
        assertThatThrownBy(() -> RpcServer.builder()
                        .service(
                                Bulk.class,
                                new BulkImpl(),
                                ServiceOptions.builder().serializers("jsn").build())
                        .build())
                .hasMessageContaining("jsn")
                .hasMessageContaining("kryo");
    }

    @Test
    void aClientThatStopsReadingCannotMakeTheServerBufferWithoutLimit() throws Exception {
        int high = 512 * 1024;
        int size = 1024 * 1024;
        BulkImpl impl = new BulkImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .writeBufferWaterMark(high / 2, high)
                        .service(Bulk.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Bulk good = proxy(client, server, ReferenceOptions.builder().timeout(Duration.ofSeconds(10)));
            assertThat(good.big(size)).hasSize(size); // the server learns how large big's answers are
            try (RawPeer greedy = new RawPeer(server.port(), 4096)) {
                ByteArrayOutputStream burst = new ByteArrayOutputStream();
                byte[] args = kryo(size);
                for (int i = 0; i < 48; i++) {
                    burst.writeBytes(RawPeer.request(100 + i, Codecs.KRYO_ID, 60_000, SERVICE, "big(int)", args));
                }
                greedy.send(burst.toByteArray()); // and never reads
                await().atMost(Duration.ofSeconds(10)).until(() -> impl.bigRuns.get() >= 2);
                long bound = high + size + 64 * 1024; // the high-water mark plus one frame
                await().during(Duration.ofSeconds(1))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> server.pendingOutputBytes() <= bound && impl.bigRuns.get() < 1 + 48);
                System.out.printf(
                        "non-reading client: %d of 48 calls run, %d bytes of output pending (bound %d)%n",
                        impl.bigRuns.get() - 1, server.pendingOutputBytes(), bound);
                for (int i = 0; i < 20; i++) {
                    assertThat(good.quick("q" + i)).isEqualTo("q" + i);
                }
            }
        }
    }

    @Test
    void aProviderThatStopsReadingCannotMakeTheClientBufferWithoutLimit() throws Exception {
        long limit = 1024 * 1024;
        // A "provider" that accepts and never reads: the kernel's buffers fill, then the client's.
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RpcClient client = RpcClient.builder()
                        .maxPendingRequestBytes(limit)
                        .writeBufferWaterMark(32 * 1024, 64 * 1024)
                        .build()) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    Socket s = listener.accept();
                    s.setReceiveBufferSize(4096);
                    return s;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            Bulk s = client.proxy(
                    Bulk.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + listener.getLocalPort())
                            .timeout(Duration.ofSeconds(30))
                            .retries(0)
                            .build());
            byte[] payload = new byte[64 * 1024];
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            try {
                for (int i = 0; i < 400; i++) { // 25 MiB of requests, far more than the socket buffers take
                    calls.add(s.lengthAsync(payload));
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> calls.stream()
                                .filter(CompletableFuture::isDone)
                                .anyMatch(CompletableFuture::isCompletedExceptionally));
                Throwable failure = calls.stream()
                        .filter(CompletableFuture::isCompletedExceptionally)
                        .map(f -> f.handle((v, t) -> t instanceof CompletionException ? t.getCause() : t)
                                .join())
                        .findFirst()
                        .orElseThrow();
                assertThat(failure).isInstanceOf(RpcException.class);
                RpcException refused = (RpcException) failure;
                assertThat(refused.status()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED);
                assertThat(refused.getMessage()).contains("maxPendingRequestBytes", "not sent");
                assertThat(client.queuedRequestBytes()).isLessThanOrEqualTo(limit);
            } finally {
                accepted.join().close();
            }
        }
    }

    @Test
    void connectionsOverTheCapAreRefusedWithAGoawayTheClientRetriesElsewhere() throws Exception {
        BulkImpl impl = new BulkImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .maxConnections(2)
                        .service(Bulk.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            RawPeer a = new RawPeer(server.port());
            RawPeer b = new RawPeer(server.port());
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 2);
            try (RawPeer c = new RawPeer(server.port())) {
                RawPeer.Reply r = c.read();
                assertThat(r.type()).isEqualTo(MessageType.GOAWAY.code());
                assertThat(r.status()).isEqualTo(RpcStatus.UNAVAILABLE.code());
                assertThat(r.message()).contains("2 connections open", "maxConnections");
                assertThat(c.readUntilClosed()).isEmpty();
            }
            Bulk s = proxy(client, server, ReferenceOptions.builder().retries(0).timeout(Duration.ofSeconds(5)));
            assertThatThrownBy(() -> s.length("x")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).as(e.getMessage()).isEqualTo(RpcStatus.UNAVAILABLE);
                assertThat(e.isSafeToRetry()).isTrue();
                assertThat(e.getMessage()).contains("maxConnections");
            });
            assertThat(impl.lengthRuns).hasValue(0);
            a.close();
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> s.length("xy") == 2);
            b.close();
        }
    }

    @Test
    void connectionsOverThePerAddressCapAreRefused() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .maxConnectionsPerAddress(1)
                        .service(Bulk.class, new BulkImpl())
                        .build()
                        .start();
                RawPeer a = new RawPeer(server.port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 1);
            RawPeer b = new RawPeer(server.port());
            RawPeer.Reply r = b.read();
            b.close();
            assertThat(r.type()).isEqualTo(MessageType.GOAWAY.code());
            assertThat(r.message()).contains("from 127.0.0.1", "maxConnectionsPerAddress");
        }
    }

    @Test
    void aPeerTricklingAFrameIsDisconnectedAtTheFrameTimeout() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .frameTimeout(Duration.ofMillis(300))
                        .service(Bulk.class, new BulkImpl())
                        .build()
                        .start();
                RawPeer trickler = new RawPeer(server.port())) {
            byte[] frame = RawPeer.request(1, Codecs.KRYO_ID, 5000, SERVICE, "quick(java.lang.String)", kryo("x"));
            ExecutorService drip = Executors.newSingleThreadExecutor();
            try {
                drip.submit(() -> {
                    OutputStream out = trickler.socket.getOutputStream();
                    for (byte b : frame) { // a byte every 50 ms: never idle, never a whole frame in time
                        out.write(b);
                        out.flush();
                        TimeUnit.MILLISECONDS.sleep(50);
                    }
                    return null;
                });
                try {
                    assertThat(trickler.readUntilClosed())
                            .as("the server closes the trickling connection")
                            .isEmpty();
                } catch (SocketException reset) {
                    // closed while the trickle went on writing: the peer sees a reset instead of an end
                }
            } finally {
                drip.shutdownNow();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        }
    }

    @Test
    void gzipBodiesAreDecompressedOnCallThreadsNotOnTheEventLoop() {
        RecordingGzipCompressor.DECOMPRESSED_ON.clear();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .compressThreshold(0)
                        .service(Bulk.class, new BulkImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().compressThreshold(0).build()) {
            Bulk s = proxy(client, server, ReferenceOptions.builder().compressor("recording-gzip"));
            assertThat(s.quick("compressed both ways")).isEqualTo("compressed both ways");
            List<String> threads = new ArrayList<>(RecordingGzipCompressor.DECOMPRESSED_ON);
            assertThat(threads)
                    .anyMatch(t -> t.startsWith("xrpc-server-call"))
                    .noneMatch(t -> t.startsWith("xrpc-server-io"));
        }
    }

    @Test
    void aCallWhoseDeadlinePassesWhileItsArgumentsAreReadDoesNotRun() {
        BulkImpl impl = new BulkImpl();
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .service(Bulk.class, impl)
                        .build()
                        .start();
                RpcClient client = RpcClient.builder().build()) {
            Bulk s = proxy(
                    client,
                    server,
                    ReferenceOptions.builder()
                            .serializer("slow-reader")
                            .retries(0)
                            .timeout(Duration.ofMillis(200)));
            int reads = DeadlineWaitingSerializerProvider.READS.get();
            assertThatThrownBy(() -> s.length("late"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.DEADLINE_EXCEEDED));
            // The server did read the arguments (late), and then answered without running the call.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> DeadlineWaitingSerializerProvider.READS.get() > reads && server.inFlight() == 0);
            assertThat(impl.lengthRuns)
                    .as("runs of a call read after its deadline")
                    .hasValue(0);
        }
    }

    /** A provider that answers every request with {@code body} as an OK result. */
    private static CompletableFuture<Void> fakeProvider(ServerSocket listener, byte[] body) {
        return CompletableFuture.runAsync(() -> {
            try (Socket s = listener.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] header = new byte[24];
                in.readFully(header);
                ByteBuffer h = ByteBuffer.wrap(header);
                in.readFully(new byte[h.getInt(20)]);
                s.getOutputStream().write(RawPeer.frame(MessageType.RESPONSE, Codecs.KRYO_ID, h.getLong(8), 0, body));
                s.getOutputStream().flush();
                in.read(); // until the client closes
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aResponseThatCannotBeReadFailsItsCallAtOnceNotAtTheDeadline() throws Exception {
        byte[] valid = kryo((Object) new byte[0]);
        Output claim = new Output(8);
        claim.writeVarInt((1 << 30) + 1, true);
        byte[] bomb = concat(Arrays.copyOf(valid, valid.length - 1), claim.toBytes());
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RpcClient client = RpcClient.builder().build()) {
            CompletableFuture<Void> provider = fakeProvider(listener, bomb);
            Bulk s = client.proxy(
                    Bulk.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + listener.getLocalPort())
                            .timeout(Duration.ofSeconds(30))
                            .retries(0)
                            .build());
            assertThatThrownBy(() -> s.big(1)).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                assertThat(e.getMessage()).contains("byte[] claims 1073741824 elements");
            });
            client.close();
            provider.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anErrorWhileReadingAResponseFailsOnlyThatCall() throws Exception {
        // A result naming an allowed class whose initialisation throws: an Error, not an Exception.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new KryoSerializerProvider()
                .create(ClassAllowList.withDefaults().allowClass(Calm.class), ReadLimits.defaults())
                .writeResult(new Calm(), out);
        byte[] calm = out.toByteArray();
        // Kryo ends an ASCII string with its last character's high bit set.
        byte[] boom = new String(calm, StandardCharsets.ISO_8859_1)
                .replace("Cal\u00ed", "Boo\u00ed")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertThat(boom).isNotEqualTo(calm);
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RpcClient client = RpcClient.builder().allowClass(Boom.class).build()) {
            CompletableFuture<Void> provider = fakeProvider(listener, boom);
            Bulk s = client.proxy(
                    Bulk.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + listener.getLocalPort())
                            .timeout(Duration.ofSeconds(30))
                            .retries(0)
                            .build());
            assertThatThrownBy(() -> s.length("x")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR);
                assertThat(e.getMessage()).contains("cannot read the response");
            });
            assertThat(client.pendingCalls()).isZero();
            client.close();
            provider.get(10, TimeUnit.SECONDS);
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }
}
