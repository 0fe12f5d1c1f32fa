package io.xrpc.benchmark.peers;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.xrpc.benchmark.peers.proto.Email;
import io.xrpc.benchmark.peers.proto.Flag;
import io.xrpc.benchmark.peers.proto.Page;
import io.xrpc.benchmark.peers.proto.PageNo;
import io.xrpc.benchmark.peers.proto.User;
import io.xrpc.benchmark.peers.proto.UserId;
import io.xrpc.benchmark.peers.proto.UserServiceGrpc;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.stress.Contender;
import io.xrpc.benchmark.stress.StressTool;
import java.net.InetSocketAddress;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** gRPC-java: protobuf messages with the fields of the benchmark's User, blocking stub, one channel. */
public final class GrpcContender implements Contender {

    static User user(io.xrpc.benchmark.model.User u) {
        return User.newBuilder().setId(u.id).setName(u.name).setSex(u.sex)
                .setBirthdayEpochDay(u.birthday.toEpochDay()).setEmail(u.email).setMobile(u.mobile)
                .setAddress(u.address).setIcon(u.icon).addAllPermissions(u.permissions).setStatus(u.status)
                .setCreateTimeMillis(u.createTime.toInstant(ZoneOffset.UTC).toEpochMilli())
                .setUpdateTimeMillis(u.updateTime.toInstant(ZoneOffset.UTC).toEpochMilli()).build();
    }

    @Override
    public AutoCloseable startServer(int[] port) throws Exception {
        User one = user(io.xrpc.benchmark.model.Payloads.user(1));
        Page.Builder pb = Page.newBuilder().setPageNo(1).setTotal(1000);
        for (io.xrpc.benchmark.model.User u : io.xrpc.benchmark.model.Payloads.page(1).result) {
            pb.addResult(user(u));
        }
        Page page = pb.build();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new UserServiceGrpc.UserServiceImplBase() {
                    @Override
                    public void existUser(Email request, StreamObserver<Flag> out) {
                        out.onNext(Flag.newBuilder().setOk(!request.getEmail().isEmpty()).build());
                        out.onCompleted();
                    }

                    @Override
                    public void createUser(User request, StreamObserver<Flag> out) {
                        out.onNext(Flag.newBuilder().setOk(request.getId() != 0).build());
                        out.onCompleted();
                    }

                    @Override
                    public void getUser(UserId request, StreamObserver<User> out) {
                        out.onNext(one);
                        out.onCompleted();
                    }

                    @Override
                    public void listUser(PageNo request, StreamObserver<Page> out) {
                        out.onNext(page);
                        out.onCompleted();
                    }
                }).build().start();
        port[0] = server.getPort();
        return () -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Override
    public StressTool.Call caller(String scenario, int port, List<AutoCloseable> resources) {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        resources.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        UserServiceGrpc.UserServiceBlockingStub stub = UserServiceGrpc.newBlockingStub(channel);
        User user = user(io.xrpc.benchmark.model.Payloads.user(1));
        return switch (scenario) {
            case "existUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                    .existUser(Email.newBuilder().setEmail("dong.lea@gmail.com").build()).getOk());
            case "createUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS).createUser(user).getOk());
            case "getUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                    .getUser(UserId.newBuilder().setId(1).build()).getId() == 1);
            case "listUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                    .listUser(PageNo.newBuilder().setPageNo(1).build()).getResultCount() == 15);
            default -> throw new IllegalArgumentException("scenario: " + scenario);
        };
    }
}
