package io.xrpc.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DurationProto;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.TimestampProto;
import com.google.rpc.ErrorInfo;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.server.RpcServer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java's own client calls an XRpc provider's port: its messages described by nothing but the
 * descriptor XRpc derives from the Java interface (as a client without the interface would get it),
 * read by protobuf-java, so every byte either side writes is checked by the other's real library.
 */
@Timeout(60)
class GrpcJavaClientTest {
    static RpcServer server;
    static ManagedChannel channel;
    static Descriptors.FileDescriptor file;
    static Descriptors.ServiceDescriptor service;
    static final List<String> intercepted = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = CatalogImpl.guarded()
                .interceptor((inv, next) -> {
                    intercepted.add(
                            inv.method().name() + " " + inv.attachments().get("x-team"));
                    return next.proceed(inv);
                })
                .build()
                .start();
        channel = GrpcChannels.to(server);
        file = descriptor(ProtoContract.of(Catalog.class));
        service = file.findServiceByName("Catalog");
    }

    @AfterAll
    static void stop() throws Exception {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.close();
    }

    /** protobuf-java's view of the derived contract: it validates every name, number and type. */
    static Descriptors.FileDescriptor descriptor(ProtoContract contract) throws Exception {
        FileDescriptorProto proto = FileDescriptorProto.parseFrom(contract.fileDescriptor());
        Map<String, Descriptors.FileDescriptor> known = Map.of(
                "google/protobuf/empty.proto", EmptyProto.getDescriptor(),
                "google/protobuf/timestamp.proto", TimestampProto.getDescriptor(),
                "google/protobuf/duration.proto", DurationProto.getDescriptor());
        List<Descriptors.FileDescriptor> deps = new ArrayList<>();
        for (String d : proto.getDependencyList()) {
            deps.add(known.get(d));
        }
        return Descriptors.FileDescriptor.buildFrom(proto, deps.toArray(new Descriptors.FileDescriptor[0]));
    }

    static MethodDescriptor<DynamicMessage, DynamicMessage> method(String name) {
        Descriptors.MethodDescriptor m = service.findMethodByName(name);
        assertThat(m).as("rpc %s in the derived contract", name).isNotNull();
        return MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                .setType(
                        m.isServerStreaming()
                                ? (m.isClientStreaming()
                                        ? MethodDescriptor.MethodType.BIDI_STREAMING
                                        : MethodDescriptor.MethodType.SERVER_STREAMING)
                                : m.isClientStreaming()
                                        ? MethodDescriptor.MethodType.CLIENT_STREAMING
                                        : MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service.getFullName(), name))
                .setRequestMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(m.getInputType())))
                .setResponseMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(m.getOutputType())))
                .build();
    }

    static DynamicMessage request(String method, Object... fieldsAndValues) {
        Descriptors.Descriptor in = service.findMethodByName(method).getInputType();
        DynamicMessage.Builder b = DynamicMessage.newBuilder(in);
        for (int i = 0; i < fieldsAndValues.length; i += 2) {
            b.setField(in.findFieldByName((String) fieldsAndValues[i]), fieldsAndValues[i + 1]);
        }
        return b.build();
    }

    static DynamicMessage call(String method, CallOptions options, DynamicMessage request) {
        return ClientCalls.blockingUnaryCall(channel, method(method), options, request);
    }

    static CallOptions deadline() {
        return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    static Object field(DynamicMessage m, String name) {
        return m.getField(m.getDescriptorForType().findFieldByName(name));
    }

    @Test
    void aUnaryCallWithScalarParametersAnswersTheItemMessage() {
        DynamicMessage item = call("get", deadline(), request("get", "id", 4L));
        assertThat(item.getDescriptorForType().getName()).isEqualTo("Item");
        assertThat(field(item, "id")).isEqualTo(4L);
        assertThat(field(item, "sku")).isEqualTo("sku-4");
        assertThat(((Descriptors.EnumValueDescriptor) field(item, "kind")).getName())
                .isEqualTo("TEA");
        assertThat(field(item, "tags")).isEqualTo(List.of("a", "b"));
        assertThat(field(item, "price")).isEqualTo("12.50");
        assertThat(field(item, "note")).isEqualTo("fragile");
        assertThat(field(item, "rank")).isEqualTo(4);
        assertThat(field(item, "weight")).isEqualTo(6.0);
        assertThat(field(item, "active")).isEqualTo(true);
        DynamicMessage added = (DynamicMessage) field(item, "added");
        assertThat(field(added, "seconds")).isEqualTo(CatalogImpl.ADDED.getEpochSecond());
        assertThat(field(added, "nanos")).isEqualTo(CatalogImpl.ADDED.getNano());
        DynamicMessage life = (DynamicMessage) field(item, "shelfLife");
        assertThat(field(life, "seconds")).isEqualTo(30L * 24 * 3600);
        assertThat(field(life, "nanos")).isEqualTo(5_000_000);
        @SuppressWarnings("unchecked")
        List<DynamicMessage> stock = (List<DynamicMessage>) field(item, "stock");
        assertThat(stock).hasSize(1);
        assertThat(field(stock.get(0), "key")).isEqualTo("berlin");
        assertThat(field(stock.get(0), "value")).isEqualTo(3);
    }

    @Test
    void aGenericClassIsAMessagePerParameterization() {
        DynamicMessage page = call("page", deadline(), request("page", "number", 3));
        assertThat(page.getDescriptorForType().getName()).isEqualTo("PageOfItem");
        assertThat(field(page, "number")).isEqualTo(3);
        @SuppressWarnings("unchecked")
        List<DynamicMessage> items = (List<DynamicMessage>) field(page, "items");
        assertThat(items).extracting(i -> field(i, "id")).containsExactly(3L, 4L);
    }

    @Test
    void nullAndZeroStayApartThroughOptionalFields() {
        DynamicMessage item = call("get", deadline(), request("get", "id", 3L)); // rank null, note empty
        Descriptors.Descriptor d = item.getDescriptorForType();
        assertThat(item.hasField(d.findFieldByName("rank"))).isFalse();
        assertThat(item.hasField(d.findFieldByName("note"))).isFalse();
        assertThat(item.hasField(d.findFieldByName("sku"))).isTrue();
    }

    @Test
    void aMessageParameterIsTheRequestAndComesBackWhole() {
        DynamicMessage sent = call("get", deadline(), request("get", "id", 6L));
        Descriptors.Descriptor d = sent.getDescriptorForType();
        DynamicMessage changed = sent.toBuilder()
                .setField(d.findFieldByName("sku"), "renamed")
                .setField(d.findFieldByName("rank"), 0) // present and zero
                .build();
        DynamicMessage back = call("save", deadline(), changed);
        assertThat(field(back, "sku")).isEqualTo("renamed");
        assertThat(back.hasField(d.findFieldByName("rank"))).isTrue();
        assertThat(field(back, "rank")).isEqualTo(0);
        assertThat(back.toByteString()).isEqualTo(changed.toByteString());
    }

    @Test
    void textOfEveryUtf8LengthArrivesAsProtobufJavaWritesIt() {
        DynamicMessage sent = call("get", deadline(), request("get", "id", 6L));
        Descriptors.FieldDescriptor sku = sent.getDescriptorForType().findFieldByName("sku");
        for (String text : List.of("plain", "Grüße", "日本語", "emoji \uD83D\uDE00 end", "x".repeat(300) + "é")) {
            DynamicMessage back = call(
                    "save", deadline(), sent.toBuilder().setField(sku, text).build());
            assertThat(field(back, "sku")).isEqualTo(text);
        }
    }

    @Test
    void aGzipCallIsReadAndAnsweredInGzip() {
        // grpc-java compresses each message it sends with gzip and says so in grpc-encoding; a
        // large answer comes back compressed by the provider (over its compression threshold).
        java.util.concurrent.atomic.AtomicReference<Metadata> headers =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Metadata> trailers =
                new java.util.concurrent.atomic.AtomicReference<>();
        io.grpc.Channel capturing = io.grpc.ClientInterceptors.intercept(
                channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
        DynamicMessage found = ClientCalls.blockingUnaryCall(
                capturing,
                method("search"),
                deadline().withCompression("gzip"),
                request("search", "text", "tea", "limit", 200));
        assertThat((List<?>) field(found, "value")).hasSize(200);
        assertThat(headers.get().get(Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER)))
                .isEqualTo("gzip");
        DynamicMessage one = call("get", deadline().withCompression("gzip"), request("get", "id", 8L));
        assertThat(field(one, "sku")).isEqualTo("sku-8");
    }

    @Test
    void aListResultIsTheRepeatedValueOfTheResponseAndVoidIsEmpty() {
        DynamicMessage found = call("search", deadline(), request("search", "text", "tea", "limit", 3));
        assertThat(found.getDescriptorForType().getName()).isEqualTo("SearchResponse");
        assertThat((List<?>) field(found, "value")).hasSize(3);
        DynamicMessage none = call("touch", deadline(), request("touch", "sku", "x"));
        assertThat(none.getDescriptorForType().getFullName()).isEqualTo("google.protobuf.Empty");
    }

    @Test
    void aServerStreamArrivesMessageByMessage() {
        Iterator<DynamicMessage> it = ClientCalls.blockingServerStreamingCall(
                channel, method("watch"), deadline(), request("watch", "count", 5));
        List<Long> ids = new ArrayList<>();
        it.forEachRemaining(m -> ids.add((Long) field(m, "id")));
        assertThat(ids).containsExactly(1L, 2L, 3L, 4L, 5L);
    }

    @Test
    void aDeclaredExceptionIsAStatusWithItsFieldsInTheDetails() throws Exception {
        StatusRuntimeException e = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> call("reserve", deadline(), request("reserve", "sku", "saffron", "quantity", 50)));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(e.getStatus().getDescription()).contains("saffron has only 10 left");
        com.google.rpc.Status details = StatusProto.fromThrowable(e);
        assertThat(details).isNotNull();
        ErrorInfo info = details.getDetails(0).unpack(ErrorInfo.class);
        assertThat(info.getReason()).isEqualTo("OutOfStock");
        assertThat(info.getMetadataMap()).containsEntry("class", Catalog.OutOfStock.class.getName());
        Any fields = details.getDetails(1);
        Descriptors.Descriptor outOfStock = file.findMessageTypeByName("OutOfStock");
        assertThat(fields.getTypeUrl()).isEqualTo("type.googleapis.com/" + outOfStock.getFullName());
        DynamicMessage carried = DynamicMessage.parseFrom(outOfStock, fields.getValue());
        assertThat(field(carried, "sku")).isEqualTo("saffron");
        assertThat(field(carried, "left")).isEqualTo(10);
    }

    @Test
    void aLongExceptionMessageStillArrivesAsItsStatusWithinTheTrailersLimit() {
        String sku = "s".repeat(5_000); // the message and the carried field each about 5 KB
        StatusRuntimeException e = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> call("reserve", deadline(), request("reserve", "sku", sku, "quantity", 50)));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN); // not a reset for oversized trailers
        assertThat(e.getStatus().getDescription()).startsWith("sss").hasSize(1_000);
        com.google.rpc.Status details = StatusProto.fromThrowable(e);
        assertThat(details).isNotNull();
        assertThat(details.getDetailsCount()).isEqualTo(1); // the fields left out, the class kept
    }

    @Test
    void theTokenInMetadataReachesTheAuthenticatorAndOtherMetadataTheInterceptors() {
        assertThatThrownBy(() -> call("secret", deadline(), request("secret")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                    assertThat(e.getStatus().getDescription()).contains("a valid bearer token is required");
                });
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer good");
        md.put(Metadata.Key.of("x-team", Metadata.ASCII_STRING_MARSHALLER), "blue");
        DynamicMessage ok = ClientCalls.blockingUnaryCall(
                io.grpc.ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md)),
                method("secret"),
                deadline(),
                request("secret"));
        assertThat(field(ok, "value")).isEqualTo("the secret");
        assertThat(intercepted).contains("secret blue");
    }

    @Test
    void theCallersDeadlineIsTheCallsBudget() {
        assertThatThrownBy(() -> call(
                        "slow",
                        CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS),
                        request("slow", "millis", 3000)))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        DynamicMessage ok = call("slow", deadline(), request("slow", "millis", 1));
        assertThat(field(ok, "value")).isEqualTo("done");
    }

    @Test
    void whatProtobufCannotExpressIsNamedAndLeftOut() {
        ProtoContract c = ProtoContract.of(Catalog.class);
        assertThat(c.rpc("anything")).isNull();
        assertThat(c.rpc("over")).isNull();
        assertThat(String.join("\n", c.problems()))
                .contains("anything(java.lang.Object): java.lang.Object is polymorphic")
                .contains("over is overloaded");
        assertThat(c.proto()).contains("//   over is overloaded");
        MethodDescriptor<DynamicMessage, DynamicMessage> unknown =
                MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                        .setType(MethodDescriptor.MethodType.UNARY)
                        .setFullMethodName(Catalog.class.getName().replace('$', '.') + "/anything")
                        .setRequestMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(
                                service.findMethodByName("touch").getInputType())))
                        .setResponseMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(
                                service.findMethodByName("touch").getInputType())))
                        .build();
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(
                        channel,
                        unknown,
                        deadline(),
                        DynamicMessage.getDefaultInstance(
                                service.findMethodByName("touch").getInputType())))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
                    assertThat(e.getStatus().getDescription()).contains("java.lang.Object is polymorphic");
                });
    }

    @Test
    void aClientStreamPastTheProvidersWindowArrivesWholeUnderHttp2FlowControl() {
        Received<DynamicMessage> answer = new Received<>();
        io.grpc.stub.StreamObserver<DynamicMessage> up =
                ClientCalls.asyncClientStreamingCall(channel.newCall(method("count"), deadline()), answer);
        DynamicMessage item = call("get", deadline(), request("get", "id", 2L));
        int n = 5_000; // five of the provider's 1,024-message windows
        for (int i = 0; i < n; i++) {
            up.onNext(item);
        }
        up.onCompleted();
        assertThat(answer.await().getCode()).isEqualTo(Status.Code.OK);
        assertThat(answer.messages).hasSize(1);
        assertThat(field(answer.messages.get(0), "value")).isEqualTo(n);
    }

    @Test
    void aBidirectionalStreamAnswersEachMessageAsItComes() {
        Received<DynamicMessage> answer = new Received<>();
        io.grpc.stub.StreamObserver<DynamicMessage> up =
                ClientCalls.asyncBidiStreamingCall(channel.newCall(method("echo"), deadline()), answer);
        Descriptors.Descriptor in = service.findMethodByName("echo").getInputType();
        for (String w : List.of("tea", "coffee", "water")) {
            up.onNext(DynamicMessage.newBuilder(in)
                    .setField(in.findFieldByName("value"), w)
                    .build());
        }
        up.onCompleted();
        assertThat(answer.await().getCode()).isEqualTo(Status.Code.OK);
        assertThat(answer.messages).extracting(m -> field(m, "value")).containsExactly("TEA", "COFFEE", "WATER");
    }

    @Test
    void aMalformedMessageInACallerStreamEndsTheCallNamingIt() {
        MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
                .setFullMethodName(Catalog.class.getName() + "/count")
                .setRequestMarshaller(GrpcHostileTest.RAW)
                .setResponseMarshaller(GrpcHostileTest.RAW)
                .build();
        // grpc-java frames each message itself; a message that is not a protobuf Item fails reading it.
        Received<byte[]> answer = new Received<>();
        io.grpc.stub.StreamObserver<byte[]> up =
                ClientCalls.asyncClientStreamingCall(channel.newCall(raw, deadline()), answer);
        up.onNext(new byte[] {0x12, (byte) 0xFF, 0x7F}); // sku claims 16,383 bytes
        up.onCompleted();
        Status s = answer.await();
        assertThat(s.getCode()).isNotEqualTo(Status.Code.OK);
        assertThat(s.getDescription()).contains("claims");
    }

    @Test
    void aProviderThatTakesNothingStopsItsCallerAtAWindowAndServesOthersMeanwhile() {
        Received<DynamicMessage> answer = new Received<>();
        io.grpc.stub.ClientCallStreamObserver<DynamicMessage> up =
                (io.grpc.stub.ClientCallStreamObserver<DynamicMessage>)
                        ClientCalls.asyncClientStreamingCall(channel.newCall(method("hoard"), deadline()), answer);
        DynamicMessage item = call("get", deadline(), request("get", "id", 2L));
        DynamicMessage big = item.toBuilder()
                .setField(item.getDescriptorForType().findFieldByName("sku"), "x".repeat(1024))
                .build();
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        // Push whenever grpc-java's transport takes messages: it stops once the provider's credit
        // (256 KiB) and this stream's HTTP/2 window (64 KiB) are full, and stays stopped.
        java.util.concurrent.Callable<Boolean> stopped = () -> {
            while (up.isReady() && sent.get() < 20_000) {
                up.onNext(big);
                sent.incrementAndGet();
            }
            return !up.isReady();
        };
        org.awaitility.Awaitility.await()
                .during(java.time.Duration.ofMillis(1500))
                .atMost(java.time.Duration.ofSeconds(15))
                .until(stopped);
        assertThat(sent.get()).as("messages of 1 KiB the caller could send").isBetween(256, 1_000);
        assertThat(field(call("get", deadline(), request("get", "id", 5L)), "id"))
                .isEqualTo(5L);
        up.cancel("done", null);
        assertThat(answer.await().getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    @Test
    void aServerStreamWhoseReaderStopsCostsTheProviderAWindowNotTheStream() throws Exception {
        CatalogImpl.FLOODED.set(0);
        int clientWindow = 64 * 1024; // grpc-java reads ahead this much for a stream whatever its listener asks
        ManagedChannel small =
                GrpcChannels.builder(server).flowControlWindow(clientWindow).build();
        try {
            io.grpc.ClientCall<DynamicMessage, DynamicMessage> c = small.newCall(method("flood"), deadline());
            List<DynamicMessage> got = new CopyOnWriteArrayList<>();
            c.start(
                    new io.grpc.ClientCall.Listener<>() {
                        @Override
                        public void onMessage(DynamicMessage message) {
                            got.add(message); // and asks for no more
                        }
                    },
                    new Metadata());
            c.request(1);
            c.sendMessage(request("flood", "count", 1_000_000));
            c.halfClose();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(15))
                    .until(() -> got.size() == 1);
            // The provider makes items only under credit, and credit comes back only as the socket
            // takes them, which the caller's HTTP/2 window stops: production stops, and stays stopped.
            int[] last = {-1};
            org.awaitility.Awaitility.await()
                    .during(java.time.Duration.ofMillis(1500))
                    .atMost(java.time.Duration.ofSeconds(15))
                    .until(() -> {
                        int now = CatalogImpl.FLOODED.get();
                        boolean still = now == last[0];
                        last[0] = now;
                        return still;
                    });
            long itemBytes = got.get(0).getSerializedSize() + 5L;
            long held = CatalogImpl.FLOODED.get() * itemBytes;
            // The client's window and the provider's stream credit (256 KiB), and room for what sits
            // between them in the codec's and the socket's buffers: half a megabyte, where a reader
            // that stops would otherwise cost the whole million items.
            long bound = clientWindow + 256 * 1024 + 192 * 1024;
            assertThat(held)
                    .as("bytes of items made for a reader that took one")
                    .isLessThan(bound);
            assertThat(field(call("get", deadline(), request("get", "id", 5L)), "id"))
                    .isEqualTo(5L);
            c.cancel("done", null);
        } finally {
            small.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** The first version of a service, as an old client was built against. */
    public interface ShelfV1 {
        record Book(long id, String title) {}

        Book put(Book book);
    }

    /** The same service after a release that added fields at the end of Book. */
    public interface ShelfV2 {
        record Book(long id, String title, int pages, List<String> authors) {}

        Book put(Book book);
    }

    @Test
    void fieldsAddedAtTheEndKeepOldClientsAndOldProvidersWorking() throws Exception {
        try (RpcServer both = RpcServer.builder()
                .host("127.0.0.1")
                .service(ShelfV1.class, (ShelfV1) book -> book)
                .service(ShelfV2.class, (ShelfV2)
                        book -> new ShelfV2.Book(book.id(), book.title(), book.pages() + 100, List.of("Ada")))
                .build()
                .start()) {
            ManagedChannel ch = GrpcChannels.to(both);
            try {
                Descriptors.Descriptor v1 =
                        descriptor(ProtoContract.of(ShelfV1.class)).findMessageTypeByName("Book");
                Descriptors.Descriptor v2 =
                        descriptor(ProtoContract.of(ShelfV2.class)).findMessageTypeByName("Book");
                // An old client calls the new provider: the new fields arrive absent, and come back as
                // fields it does not know, which it keeps and skips.
                DynamicMessage old = DynamicMessage.newBuilder(v1)
                        .setField(v1.findFieldByName("id"), 7L)
                        .setField(v1.findFieldByName("title"), "Dune")
                        .build();
                DynamicMessage back = ClientCalls.blockingUnaryCall(ch, put(ShelfV2.class, v1), deadline(), old);
                assertThat(field(back, "id")).isEqualTo(7L);
                assertThat(field(back, "title")).isEqualTo("Dune");
                assertThat(back.getUnknownFields().asMap()).containsOnlyKeys(3, 4);
                assertThat(DynamicMessage.parseFrom(v2, back.toByteString()).getField(v2.findFieldByName("pages")))
                        .isEqualTo(100);
                // A new client calls an old provider: the fields it added are skipped there.
                DynamicMessage fresh = DynamicMessage.newBuilder(v2)
                        .setField(v2.findFieldByName("id"), 8L)
                        .setField(v2.findFieldByName("title"), "Emma")
                        .setField(v2.findFieldByName("pages"), 300)
                        .build();
                DynamicMessage answer = ClientCalls.blockingUnaryCall(ch, put(ShelfV1.class, v2), deadline(), fresh);
                assertThat(field(answer, "title")).isEqualTo("Emma");
                assertThat(field(answer, "pages")).isEqualTo(0);
            } finally {
                ch.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    static MethodDescriptor<DynamicMessage, DynamicMessage> put(Class<?> shelf, Descriptors.Descriptor book) {
        return MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(ProtoContract.of(shelf).fullServiceName() + "/put")
                .setRequestMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(book)))
                .setResponseMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(book)))
                .build();
    }
}
