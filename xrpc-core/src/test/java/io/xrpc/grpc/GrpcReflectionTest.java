package io.xrpc.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.xrpc.server.RpcServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC server reflection, asked by grpc-java's own reflection stub as grpcurl asks it: the services
 * listed, a service's file and its imports fetched, and a call made from nothing but what they
 * said. Reflection is a call like any: an authenticator that refuses it is obeyed.
 */
@Timeout(60)
class GrpcReflectionTest {
    static RpcServer server;
    static RpcServer guarded;
    static ManagedChannel channel;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new CatalogImpl())
                .build()
                .start();
        guarded = RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new CatalogImpl())
                .authenticator((credentials, svc, method, peer) ->
                        "Bearer good".equals(credentials) ? null : "a valid bearer token is required")
                .build()
                .start();
        channel = channel(server);
    }

    static ManagedChannel channel(RpcServer s) {
        return GrpcChannels.to(s);
    }

    @AfterAll
    static void stop() throws Exception {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.close();
        guarded.close();
    }

    /** Asks each question on one reflection stream, as grpcurl does; the answers in order, or the status it ended with. */
    static List<ServerReflectionResponse> ask(ManagedChannel ch, List<ServerReflectionRequest> questions) {
        Received<ServerReflectionResponse> answers = new Received<>();
        StreamObserver<ServerReflectionRequest> up = ServerReflectionGrpc.newStub(ch)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .serverReflectionInfo(answers);
        questions.forEach(up::onNext);
        up.onCompleted();
        Status s = answers.await();
        if (!s.isOk()) {
            throw s.asRuntimeException();
        }
        return answers.messages;
    }

    @Test
    void theServicesAreListedAndAFileWithItsImportsSufficesToCallOne() throws Exception {
        List<ServerReflectionResponse> listed = ask(
                channel,
                List.of(ServerReflectionRequest.newBuilder()
                        .setListServices("*")
                        .build()));
        assertThat(listed.get(0).getListServicesResponse().getServiceList())
                .extracting(ServiceResponse::getName)
                .contains(Catalog.class.getName(), "grpc.reflection.v1.ServerReflection");
        // A file by a symbol in it, then each file it imports by name: what grpcurl asks.
        Map<String, FileDescriptorProto> files = new HashMap<>();
        List<String> wanted = new ArrayList<>();
        ServerReflectionResponse bySymbol = ask(
                        channel,
                        List.of(ServerReflectionRequest.newBuilder()
                                .setFileContainingSymbol(Catalog.class.getName() + ".get")
                                .build()))
                .get(0);
        for (ByteString b : bySymbol.getFileDescriptorResponse().getFileDescriptorProtoList()) {
            FileDescriptorProto f = FileDescriptorProto.parseFrom(b);
            files.put(f.getName(), f);
            wanted.addAll(f.getDependencyList());
        }
        List<ServerReflectionRequest> byName = new ArrayList<>();
        for (String w : wanted) {
            byName.add(ServerReflectionRequest.newBuilder().setFileByFilename(w).build());
        }
        for (ServerReflectionResponse r : ask(channel, byName)) {
            for (ByteString b : r.getFileDescriptorResponse().getFileDescriptorProtoList()) {
                FileDescriptorProto f = FileDescriptorProto.parseFrom(b);
                files.put(f.getName(), f);
            }
        }
        FileDescriptorProto main = files.get("io/xrpc/grpc/Catalog.proto");
        List<Descriptors.FileDescriptor> deps = new ArrayList<>();
        for (String d : main.getDependencyList()) {
            deps.add(Descriptors.FileDescriptor.buildFrom(files.get(d), new Descriptors.FileDescriptor[0]));
        }
        Descriptors.FileDescriptor file =
                Descriptors.FileDescriptor.buildFrom(main, deps.toArray(new Descriptors.FileDescriptor[0]));
        Descriptors.MethodDescriptor get = file.findServiceByName("Catalog").findMethodByName("get");
        MethodDescriptor<DynamicMessage, DynamicMessage> m =
                MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                        .setType(MethodDescriptor.MethodType.UNARY)
                        .setFullMethodName(Catalog.class.getName() + "/get")
                        .setRequestMarshaller(
                                ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(get.getInputType())))
                        .setResponseMarshaller(
                                ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(get.getOutputType())))
                        .build();
        DynamicMessage request = DynamicMessage.newBuilder(get.getInputType())
                .setField(get.getInputType().findFieldByName("id"), 9L)
                .build();
        DynamicMessage item = ClientCalls.blockingUnaryCall(
                channel, m, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
        assertThat(item.getField(item.getDescriptorForType().findFieldByName("sku")))
                .isEqualTo("sku-9");
    }

    @Test
    void anUnknownSymbolIsAnErrorAnswerAndTheStreamGoesOn() {
        List<ServerReflectionResponse> answers = ask(
                channel,
                List.of(
                        ServerReflectionRequest.newBuilder()
                                .setFileContainingSymbol("no.such.Thing")
                                .build(),
                        ServerReflectionRequest.newBuilder()
                                .setListServices("*")
                                .build()));
        assertThat(answers).hasSize(2);
        assertThat(answers.get(0).getErrorResponse().getErrorCode()).isEqualTo(5);
        assertThat(answers.get(0).getErrorResponse().getErrorMessage()).contains("no.such.Thing");
        assertThat(answers.get(1).hasListServicesResponse()).isTrue();
    }

    @Test
    void theOlderV1alphaNameIsServedToo() {
        Received<io.grpc.reflection.v1alpha.ServerReflectionResponse> got = new Received<>();
        StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> up =
                io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(channel)
                        .withDeadlineAfter(20, TimeUnit.SECONDS)
                        .serverReflectionInfo(got);
        up.onNext(io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
                .setListServices("*")
                .build());
        up.onCompleted();
        assertThat(got.await().getCode()).isEqualTo(Status.Code.OK);
        assertThat(got.messages.get(0).getListServicesResponse().getServiceList())
                .extracting(io.grpc.reflection.v1alpha.ServiceResponse::getName)
                .contains(Catalog.class.getName());
    }

    @Test
    void reflectionGoesThroughTheAuthenticatorAsAnyCall() throws Exception {
        ManagedChannel g = channel(guarded);
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ask(
                            g,
                            List.of(ServerReflectionRequest.newBuilder()
                                    .setListServices("*")
                                    .build())))
                    .isInstanceOfSatisfying(
                            io.grpc.StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        } finally {
            g.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
