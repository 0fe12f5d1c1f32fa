package io.xrpc.benchmark.peers;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.xrpc.benchmark.peers.proto.Chunk;
import io.xrpc.benchmark.peers.proto.Count;
import io.xrpc.benchmark.peers.proto.StreamBenchGrpc;
import io.xrpc.benchmark.peers.proto.Tick;
import io.xrpc.benchmark.streams.Arrivals;
import io.xrpc.benchmark.streams.StreamContender;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java's streams: protobuf ticks and chunks, the async stub, and gRPC's own flow control on
 * both sides (a sender writes while its stream is ready, as gRPC's flow-control example does),
 * with the direct executor gRPC's own benchmarks use.
 */
public final class GrpcStreams implements StreamContender {

    static Tick tick(long i, long sent) {
        return Tick.newBuilder()
                .setSeq(i)
                .setSentNanos(sent)
                .setSymbol("ACME")
                .setPrice(100 + (i & 1023) / 100.0)
                .build();
    }

    @Override
    public AutoCloseable startServer(int[] port) throws Exception {
        // directExecutor on both sides: the handlers never block, and gRPC's own benchmarks run so;
        // with its default executor every message is a hop to another thread (about 25,000 a second here).
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .directExecutor()
                .addService(new StreamBenchGrpc.StreamBenchImplBase() {
                    @Override
                    public void ticks(Count request, StreamObserver<Tick> out) {
                        ServerCallStreamObserver<Tick> o = (ServerCallStreamObserver<Tick>) out;
                        long[] next = {0};
                        long count = request.getN();
                        o.setOnReadyHandler(() -> {
                            while (o.isReady() && next[0] < count) {
                                o.onNext(tick(next[0]++, System.nanoTime()));
                            }
                            if (next[0] == count) {
                                next[0]++;
                                o.onCompleted();
                            }
                        });
                    }

                    @Override
                    public StreamObserver<Chunk> upload(StreamObserver<Count> out) {
                        return new StreamObserver<>() {
                            long bytes;

                            @Override
                            public void onNext(Chunk c) {
                                bytes += c.getData().size();
                            }

                            @Override
                            public void onError(Throwable t) {}

                            @Override
                            public void onCompleted() {
                                out.onNext(Count.newBuilder().setN(bytes).build());
                                out.onCompleted();
                            }
                        };
                    }

                    @Override
                    public StreamObserver<Tick> echo(StreamObserver<Tick> out) {
                        return new StreamObserver<>() {
                            @Override
                            public void onNext(Tick t) {
                                out.onNext(t);
                            }

                            @Override
                            public void onError(Throwable t) {}

                            @Override
                            public void onCompleted() {
                                out.onCompleted();
                            }
                        };
                    }
                })
                .build()
                .start();
        port[0] = server.getPort();
        return () -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Override
    public Streamer connect(int port) {
        ManagedChannel channel =
                NettyChannelBuilder.forAddress("127.0.0.1", port)
                        .usePlaintext()
                        .directExecutor()
                        .build();
        StreamBenchGrpc.StreamBenchStub stub = StreamBenchGrpc.newStub(channel);
        return new Streamer() {
            @Override
            public void serverStream(int count, Arrivals arrivals) {
                stub.ticks(Count.newBuilder().setN(count).build(), reader(arrivals));
            }

            @Override
            public long upload(int count, int chunkBytes) throws Exception {
                CompletableFuture<Long> counted = new CompletableFuture<>();
                ByteString data = ByteString.copyFrom(new byte[chunkBytes]);
                stub.upload(new ClientResponseObserver<Chunk, Count>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<Chunk> out) {
                        int[] next = {0};
                        out.setOnReadyHandler(() -> {
                            while (out.isReady() && next[0] < count) {
                                out.onNext(Chunk.newBuilder().setIndex(next[0]++).setData(data).build());
                            }
                            if (next[0] == count) {
                                next[0]++;
                                out.onCompleted();
                            }
                        });
                    }

                    @Override
                    public void onNext(Count c) {
                        counted.complete(c.getN());
                    }

                    @Override
                    public void onError(Throwable t) {
                        counted.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                });
                return counted.get(10, TimeUnit.MINUTES);
            }

            @Override
            public void echo(int count, Arrivals arrivals) {
                stub.echo(new ClientResponseObserver<Tick, Tick>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<Tick> out) {
                        long[] next = {0};
                        out.setOnReadyHandler(() -> {
                            while (out.isReady() && next[0] < count) {
                                out.onNext(tick(next[0]++, System.nanoTime()));
                            }
                            if (next[0] == count) {
                                next[0]++;
                                out.onCompleted();
                            }
                        });
                    }

                    @Override
                    public void onNext(Tick t) {
                        arrivals.arrived(t.getSentNanos());
                    }

                    @Override
                    public void onError(Throwable t) {
                        arrivals.ended(t);
                    }

                    @Override
                    public void onCompleted() {
                        arrivals.ended(null);
                    }
                });
            }

            @Override
            public void close() throws Exception {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        };
    }

    private static StreamObserver<Tick> reader(Arrivals arrivals) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Tick t) {
                arrivals.arrived(t.getSentNanos());
            }

            @Override
            public void onError(Throwable t) {
                arrivals.ended(t);
            }

            @Override
            public void onCompleted() {
                arrivals.ended(null);
            }
        };
    }
}
