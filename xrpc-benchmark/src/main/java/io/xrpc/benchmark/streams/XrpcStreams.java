package io.xrpc.benchmark.streams;

import io.xrpc.benchmark.streams.StreamBenchService.Chunk;
import io.xrpc.benchmark.streams.StreamBenchService.Tick;
import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.stream.Streams;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * XRpc: {@link StreamBenchService} over its own protocol with default settings, in the serializer
 * the system property {@code xrpc.bench.serializer} names (kryo, the default, when it is unset).
 */
final class XrpcStreams implements StreamContender {
    private StreamBenchServiceImpl impl;

    @Override
    public AutoCloseable startServer(int[] port) throws Exception {
        impl = new StreamBenchServiceImpl();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .service(StreamBenchService.class, impl)
                .build()
                .start();
        port[0] = server.port();
        return server;
    }

    @Override
    public long made(AutoCloseable server) {
        return impl == null ? -1 : impl.made.get();
    }

    @Override
    public Streamer connect(int port) {
        RpcClient client = RpcClient.builder().build();
        StreamBenchService service = client.proxy(
                StreamBenchService.class,
                ReferenceOptions.builder()
                        .address(new Endpoint("127.0.0.1", port))
                        .serializer(System.getProperty("xrpc.bench.serializer", "kryo"))
                        .timeout(Duration.ofMinutes(10))
                        .build());
        return new Streamer() {
            @Override
            public void serverStream(int count, Arrivals arrivals) {
                service.ticks(count).subscribe(reader(arrivals));
            }

            @Override
            public long upload(int count, int chunkBytes) throws Exception {
                byte[] data = new byte[chunkBytes];
                return service.upload(Streams.fromIterable(() -> chunks(count, data)))
                        .get(10, TimeUnit.MINUTES);
            }

            @Override
            public void echo(int count, Arrivals arrivals) {
                service.echo(Streams.fromIterable(() -> ticks(count))).subscribe(reader(arrivals));
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** Reads everything as it comes: one request for all, the flow control is XRpc's window. */
    static Flow.Subscriber<Tick> reader(Arrivals arrivals) {
        return new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Tick t) {
                arrivals.arrived(t.sentNanos());
            }

            @Override
            public void onError(Throwable t) {
                arrivals.ended(t);
            }

            @Override
            public void onComplete() {
                arrivals.ended(null);
            }
        };
    }

    static Iterator<Chunk> chunks(int count, byte[] data) {
        return new Iterator<>() {
            int next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public Chunk next() {
                return new Chunk(next++, data);
            }
        };
    }

    static Iterator<Tick> ticks(int count) {
        return new Iterator<>() {
            long next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public Tick next() {
                long i = next++;
                return new Tick(i, System.nanoTime(), "ACME", 100 + (i & 1023) / 100.0);
            }
        };
    }
}
