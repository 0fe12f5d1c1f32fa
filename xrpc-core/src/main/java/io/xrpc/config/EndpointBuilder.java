package io.xrpc.config;

import io.xrpc.internal.Checks;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.TypeCheck;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings a client and a server share, each with its default: the connection's (frame limit,
 * heartbeat, compression threshold, write water marks, TLS), what the peer's bytes may build (the
 * allow-list and the read limits), the start-up type check, and the event-loop threads.
 * {@code RpcClient.Builder} and {@code RpcServer.Builder} extend it, so that each option is set,
 * checked and documented once. What the peer sends is the responses on a client and the requests on
 * a server. Not thread-safe.
 *
 * @param <B> the builder itself, so that setters chain
 */
public abstract class EndpointBuilder<B extends EndpointBuilder<B>> {
    private final boolean server;
    /** Frame limit, heartbeat, compression threshold, water marks and TLS: defaults defined there. */
    private final TransportConfig.Builder transport = TransportConfig.builder();

    private final ClassAllowList allowList = ClassAllowList.withDefaults();
    private ReadLimits readLimits = ReadLimits.defaults();
    private TypeCheck.Mode typeCheck = TypeCheck.Mode.FAIL;
    private int ioThreads;

    /**
     * @param server    whether a server is built (its TLS must be a server's)
     * @param ioThreads the default number of event-loop threads
     */
    protected EndpointBuilder(boolean server, int ioThreads) {
        this.server = server;
        this.ioThreads = ioThreads;
    }

    /** This builder as its own type, for setters to return. */
    @SuppressWarnings("unchecked")
    protected final B self() {
        return (B) this;
    }

    /** Lets what the peer sends construct {@code type} beyond what the service interfaces name. */
    public B allowClass(Class<?> type) {
        allowList.allowClass(type);
        return self();
    }

    /** Lets what the peer sends construct any class of {@code packagePrefix}. */
    public B allowPackage(String packagePrefix) {
        allowList.allowPackage(packagePrefix);
        return self();
    }

    /** What reading one message from the peer may build: default {@link ReadLimits#defaults()}. */
    public B readLimits(ReadLimits limits) {
        this.readLimits = Objects.requireNonNull(limits, "readLimits");
        return self();
    }

    /**
     * What to do when a serializer in use cannot carry a type an interface exchanges
     * ({@link TypeCheck}): {@code FAIL} (default) refuses the proxy or the export naming the method,
     * the type and the serializer (a server exporting a service that names no serializers logs the
     * problems of each serializer instead); {@code WARN} logs them and goes on; {@code OFF} does not
     * look.
     */
    public B typeCheck(TypeCheck.Mode mode) {
        this.typeCheck = Objects.requireNonNull(mode, "mode");
        return self();
    }

    /** Event-loop threads: default the number of cores (at most 4 on a client). */
    public B ioThreads(int n) {
        this.ioThreads = Checks.atLeast("ioThreads", n, 1);
        return self();
    }

    /** Largest body accepted from the peer, also after decompression: default 8 MiB, at least 16 KiB. */
    public B maxFrameLength(int bytes) {
        transport.maxFrameLength(bytes);
        return self();
    }

    /** Idle time after which a ping is sent; three without any read close the connection. Default 30 s. */
    public B heartbeatInterval(Duration interval) {
        transport.heartbeatInterval(interval);
        return self();
    }

    /** Bodies this side sends that are smaller than this go uncompressed even with a compressor: default 1024. */
    public B compressThreshold(int bytes) {
        transport.compressThreshold(bytes);
        return self();
    }

    /**
     * Output per connection: above {@code high} bytes not yet taken by the socket, this side adds no
     * more to it until the output is below {@code low}. A client's requests wait (counted in its
     * {@code maxPendingRequestBytes}); a server reads no more requests from that client and encodes
     * no more results for it. Default 512 KiB and 1 MiB.
     */
    public B writeBufferWaterMark(int low, int high) {
        transport.writeBufferWaterMark(low, high);
        return self();
    }

    /**
     * TLS; default plaintext. A client ({@link TlsConfig#client()}) talks TLS to every provider: a
     * provider without TLS fails the connect naming that, and the call goes to another provider. A
     * server ({@link TlsConfig#server}) serves TLS only: a plaintext client is answered with a refusal
     * saying the server requires TLS.
     */
    public B tls(TlsConfig tls) {
        if (tls != null && tls.isServer() != server) {
            throw new IllegalArgumentException(
                    server
                            ? "tls: a client's configuration (expected: TlsConfig.server(keys))"
                            : "tls: a server's configuration (expected: TlsConfig.client())");
        }
        transport.tls(tls);
        return self();
    }

    /** The connection settings as set, checked and frozen. */
    protected final TransportConfig transportSettings() {
        return transport.build();
    }

    /** A copy of the allow-list as set: each client or server built gets its own. */
    protected final ClassAllowList allowListCopy() {
        return allowList.copy();
    }

    /** The read limits as set. */
    protected final ReadLimits limits() {
        return readLimits;
    }

    /** The type check as set. */
    protected final TypeCheck.Mode typeCheckMode() {
        return typeCheck;
    }

    /** The event-loop threads as set. */
    protected final int eventLoopThreads() {
        return ioThreads;
    }
}
