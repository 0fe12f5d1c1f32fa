package io.xrpc.benchmark.streams;

/**
 * A framework the stream benchmark puts beside XRpc: {@code xrpc} and {@code raw-netty} are built
 * in; {@code grpc} lives in the {@code peers} Maven profile ({@code io.xrpc.benchmark.peers.GrpcStreams}),
 * so that its dependencies never reach XRpc's own modules.
 */
public interface StreamContender {
    /** Starts a provider of the three stream shapes on 127.0.0.1 and returns its port in {@code port[0]}. */
    AutoCloseable startServer(int[] port) throws Exception;

    /** A caller of the provider on {@code port}. */
    Streamer connect(int port) throws Exception;

    /** What the provider has made so far (ticks), or -1 where the contender does not count. */
    default long made(AutoCloseable server) {
        return -1;
    }

    /** One caller: each method runs one stream to its end, recording what arrives. */
    interface Streamer extends AutoCloseable {
        /** Reads a server stream of {@code count} ticks as fast as they come. */
        void serverStream(int count, Arrivals arrivals) throws Exception;

        /** Sends {@code count} chunks of {@code chunkBytes}; returns the bytes the provider counted. */
        long upload(int count, int chunkBytes) throws Exception;

        /** Sends {@code count} ticks and reads each back as it comes; the latency is each round trip. */
        void echo(int count, Arrivals arrivals) throws Exception;
    }

    /** The peer contender called {@code name}, or {@code null} when it is not on the class path. */
    static StreamContender peer(String name) {
        String cls = "io.xrpc.benchmark.peers." + Character.toUpperCase(name.charAt(0)) + name.substring(1) + "Streams";
        try {
            return (StreamContender) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + cls, e);
        }
    }

    /** The contender called {@code name}: built in, or a peer on the class path. */
    static StreamContender named(String name) {
        return switch (name) {
            case "xrpc" -> new XrpcStreams();
            case "raw-netty" -> new RawNettyStreams();
            default -> {
                StreamContender p = peer(name);
                if (p == null) {
                    throw new IllegalArgumentException("--contenders " + name + ": not on the class path (expected:"
                            + " xrpc, raw-netty, or grpc from a jar built with -Ppeers)");
                }
                yield p;
            }
        };
    }
}
