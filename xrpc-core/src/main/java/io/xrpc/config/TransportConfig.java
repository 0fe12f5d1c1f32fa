package io.xrpc.config;

import io.xrpc.internal.Checks;
import io.xrpc.protocol.ProtocolConstants;
import java.time.Duration;

/**
 * The connection settings a client and a server share, each default defined here once: frame
 * limit, heartbeat, compression threshold, write-buffer water marks and TLS. Immutable; built
 * and checked by {@link Builder#build()}. {@code RpcClient.Builder} and {@code RpcServer.Builder}
 * set these through their own setters and hand one to their transport.
 */
public final class TransportConfig {
    /** Idle time after which a side pings; three intervals without a read close the connection. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(30);
    /** Bodies smaller than this go uncompressed even with a compressor chosen. */
    public static final int DEFAULT_COMPRESS_THRESHOLD = 1024;

    private final int maxFrameLength;
    private final Duration heartbeatInterval;
    private final int compressThreshold;
    private final int writeBufferLowWaterMark;
    private final int writeBufferHighWaterMark;
    private final TlsConfig tls;

    private TransportConfig(Builder b) {
        this.maxFrameLength = b.maxFrameLength;
        this.heartbeatInterval = b.heartbeatInterval;
        this.compressThreshold = b.compressThreshold;
        this.writeBufferLowWaterMark = b.writeBufferLowWaterMark;
        this.writeBufferHighWaterMark = b.writeBufferHighWaterMark;
        this.tls = b.tls;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Largest frame body accepted (also after decompression) and sent. */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public int compressThreshold() {
        return compressThreshold;
    }

    public int writeBufferLowWaterMark() {
        return writeBufferLowWaterMark;
    }

    public int writeBufferHighWaterMark() {
        return writeBufferHighWaterMark;
    }

    /** TLS, or {@code null} for plaintext. */
    public TlsConfig tls() {
        return tls;
    }

    /** Not thread-safe. */
    public static final class Builder {
        private int maxFrameLength = ProtocolConstants.DEFAULT_MAX_FRAME_LENGTH;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private int compressThreshold = DEFAULT_COMPRESS_THRESHOLD;
        private int writeBufferLowWaterMark = ProtocolConstants.DEFAULT_WRITE_BUFFER_LOW;
        private int writeBufferHighWaterMark = ProtocolConstants.DEFAULT_WRITE_BUFFER_HIGH;
        private TlsConfig tls;

        private Builder() {}

        /** At least {@link ProtocolConstants#MIN_FRAME_LENGTH}: every error answer fits in it. */
        public Builder maxFrameLength(int bytes) {
            this.maxFrameLength = Checks.atLeast("maxFrameLength", bytes, ProtocolConstants.MIN_FRAME_LENGTH);
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = Checks.checkPositive("heartbeatInterval", interval);
            return this;
        }

        public Builder compressThreshold(int bytes) {
            this.compressThreshold = Checks.atLeast("compressThreshold", bytes, 0);
            return this;
        }

        public Builder writeBufferWaterMark(int low, int high) {
            this.writeBufferLowWaterMark = Checks.atLeast("writeBufferLowWaterMark", low, 1);
            this.writeBufferHighWaterMark = Checks.atLeast("writeBufferHighWaterMark", high, low);
            return this;
        }

        /** {@code null} for plaintext. */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        public TransportConfig build() {
            return new TransportConfig(this);
        }
    }
}
