package io.xrpc.benchmark.streams;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

/**
 * A stream provider in a JVM of its own, started by {@link StreamBench}:
 * {@code StreamProviderMain xrpc|raw-netty|grpc}. Prints {@code READY <port>}, then serves until
 * its standard input closes. Each line {@code heap} is answered {@code HEAP <used bytes after a GC>
 * <ticks made>}.
 */
public final class StreamProviderMain {
    private StreamProviderMain() {}

    public static void main(String[] args) throws Exception {
        StreamContender contender = StreamContender.named(args[0]);
        int[] port = new int[1];
        AutoCloseable server = contender.startServer(port);
        System.out.println("READY " + port[0]);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("heap")) {
                System.out.println("HEAP " + usedAfterGc() + " " + contender.made(server));
                System.out.flush();
            }
        }
        server.close();
    }

    /** Heap in use once a full collection ran: what is held, not what awaits collection. */
    static long usedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
