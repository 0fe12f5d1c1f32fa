package io.xrpc.registry.zookeeper;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.ServiceOptions;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.ForkedJvm;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One of the JVMs of a laptop on {@code embedded}: {@code EmbeddedPeerProcess <embedded port>
 * <own group> [<other group>]} exports {@link GateService} under its own group and, given another,
 * calls that group's {@code whoAmI} ten times a second. Its own {@code quick("calls")} answers how
 * many of those calls succeeded, so that the test can watch a JVM it cannot see into. Prints
 * {@code READY <port>} once registered.
 */
public final class EmbeddedPeerProcess implements AutoCloseable {
    /** Calls to the other group that succeeded. */
    final AtomicLong succeeded = new AtomicLong();

    final RpcServer server;
    final RpcClient client;
    /** Ten calls a second to the other group: the caller's pace, on a timer. */
    private final ScheduledExecutorService caller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "calls-to-peer");
        t.setDaemon(true);
        return t;
    });

    EmbeddedPeerProcess(int embeddedPort, String group, String other) {
        String registry = "embedded?port=" + embeddedPort;
        server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .registry(registry)
                .service(
                        GateService.class,
                        new GateServiceImpl(group) {
                            @Override
                            public String quick(String s) {
                                return s.equals("calls") ? Long.toString(succeeded.get()) : super.quick(s);
                            }
                        },
                        ServiceOptions.builder().group(group).build())
                .build()
                .start();
        client = RpcClient.builder().registry(registry).build();
        if (other != null) {
            GateService peer = client.proxy(
                    GateService.class,
                    ReferenceOptions.builder()
                            .group(other)
                            .timeout(Duration.ofSeconds(1))
                            .retries(0)
                            .build());
            caller.scheduleWithFixedDelay(
                    () -> {
                        try {
                            if (other.equals(peer.whoAmI())) {
                                succeeded.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            // no provider listed, or its connection gone: the gap being measured
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() {
        caller.shutdownNow();
        client.close();
        server.close();
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPeerProcess peer =
                new EmbeddedPeerProcess(Integer.parseInt(args[0]), args[1], args.length > 2 ? args[2] : null);
        System.out.println("READY " + peer.server.port());
        System.out.flush();
        ForkedJvm.serveUntilParentExits();
    }
}
