package io.xrpc.benchmark.peers;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.peers.derived.CreateUserResponse;
import io.xrpc.benchmark.peers.derived.ExistUserRequest;
import io.xrpc.benchmark.peers.derived.ExistUserResponse;
import io.xrpc.benchmark.peers.derived.GetUserRequest;
import io.xrpc.benchmark.peers.derived.ListUserRequest;
import io.xrpc.benchmark.peers.derived.PageOfUser;
import io.xrpc.benchmark.peers.derived.User;
import io.xrpc.benchmark.peers.derived.UserServiceGrpc;
import io.xrpc.benchmark.stress.Contender;
import io.xrpc.benchmark.stress.StressTool;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java on both sides of the contract XRpc derives from {@code UserService}
 * ({@code src/peers/proto/derived}): its own server, and the client that {@link XrpcGrpcContender}
 * points at XRpc's gRPC side instead, so the two differ only in the server.
 */
public final class GrpcDerivedContender implements Contender {

    static User user(io.xrpc.benchmark.model.User u) {
        return User.newBuilder()
                .setId(u.id)
                .setName(u.name)
                .setSex(u.sex)
                .setBirthday(u.birthday.toString())
                .setEmail(u.email)
                .setMobile(u.mobile)
                .setAddress(u.address)
                .setIcon(u.icon)
                .addAllPermissions(u.permissions)
                .setStatus(u.status)
                .setCreateTime(u.createTime.toString())
                .setUpdateTime(u.updateTime.toString())
                .build();
    }

    @Override
    public AutoCloseable startServer(int[] port) throws Exception {
        User one = user(Payloads.user(1));
        PageOfUser.Builder pb = PageOfUser.newBuilder().setPageNo(1).setTotal(1000);
        for (io.xrpc.benchmark.model.User u : Payloads.page(1).result) {
            pb.addResult(user(u));
        }
        PageOfUser page = pb.build();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new UserServiceGrpc.UserServiceImplBase() {
                    @Override
                    public void existUser(ExistUserRequest request, StreamObserver<ExistUserResponse> out) {
                        out.onNext(ExistUserResponse.newBuilder()
                                .setValue(!request.getEmail().isEmpty())
                                .build());
                        out.onCompleted();
                    }

                    @Override
                    public void createUser(User request, StreamObserver<CreateUserResponse> out) {
                        out.onNext(CreateUserResponse.newBuilder()
                                .setValue(request.getId() != 0)
                                .build());
                        out.onCompleted();
                    }

                    @Override
                    public void getUser(GetUserRequest request, StreamObserver<User> out) {
                        out.onNext(one);
                        out.onCompleted();
                    }

                    @Override
                    public void listUser(ListUserRequest request, StreamObserver<PageOfUser> out) {
                        out.onNext(page);
                        out.onCompleted();
                    }
                })
                .build()
                .start();
        port[0] = server.getPort();
        return () -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Override
    public StressTool.Call caller(String scenario, int port, List<AutoCloseable> resources) {
        return client(scenario, port, resources);
    }

    /** grpc-java's generated blocking stub of the derived contract, one channel, a 3 s deadline a call. */
    static StressTool.Call client(String scenario, int port, List<AutoCloseable> resources) {
        ManagedChannel channel =
                NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        resources.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        UserServiceGrpc.UserServiceBlockingStub stub = UserServiceGrpc.newBlockingStub(channel);
        User user = user(Payloads.user(1));
        return switch (scenario) {
            case "existUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                    .existUser(ExistUserRequest.newBuilder()
                            .setEmail("dong.lea@gmail.com")
                            .build())
                    .getValue());
            case "createUser" -> () -> Scenarios.check(
                    stub.withDeadlineAfter(3, TimeUnit.SECONDS).createUser(user).getValue());
            case "getUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                            .getUser(GetUserRequest.newBuilder().setId(1).build())
                            .getId()
                    == 1);
            case "listUser" -> () -> Scenarios.check(stub.withDeadlineAfter(3, TimeUnit.SECONDS)
                            .listUser(ListUserRequest.newBuilder().setPageNo(1).build())
                            .getResultCount()
                    == 15);
            default -> throw new IllegalArgumentException("scenario: " + scenario);
        };
    }
}
