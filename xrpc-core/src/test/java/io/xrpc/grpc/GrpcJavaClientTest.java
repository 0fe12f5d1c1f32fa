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
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
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
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new CatalogImpl())
                .authenticator((credentials, svc, method, peer) ->
                        method.name().equals("secret") && !"Bearer good".equals(credentials)
                                ? "a valid bearer token is required"
                                : null)
                .interceptor((inv, next) -> {
                    intercepted.add(
                            inv.method().name() + " " + inv.attachments().get("x-team"));
                    return next.proceed(inv);
                })
                .build()
                .start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.endpoint().port())
                .usePlaintext()
                .build();
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
    void aCallerStreamIsRefusedAtOnceNamingWhy() {
        java.util.concurrent.CompletableFuture<Status> ended = new java.util.concurrent.CompletableFuture<>();
        io.grpc.stub.StreamObserver<DynamicMessage> up = io.grpc.stub.ClientCalls.asyncClientStreamingCall(
                channel.newCall(method("count"), deadline()), new io.grpc.stub.StreamObserver<>() {
                    @Override
                    public void onNext(DynamicMessage value) {
                        ended.complete(Status.OK);
                    }

                    @Override
                    public void onError(Throwable t) {
                        ended.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {}
                });
        up.onNext(call("get", deadline(), request("get", "id", 1L)));
        up.onCompleted();
        Status s = ended.orTimeout(20, TimeUnit.SECONDS).join();
        assertThat(s.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(s.getDescription()).contains("takes a stream from its caller");
    }
}
