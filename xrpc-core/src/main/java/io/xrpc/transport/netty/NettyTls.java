package io.xrpc.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.ScheduledFuture;
import io.xrpc.config.TlsConfig;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/** {@link TlsConfig} in Netty's terms: the contexts, and the gate that names a peer on the other protocol. */
final class NettyTls {
    private NettyTls() {}

    /**
     * The JDK's TLS: OpenSSL through netty-tcnative is not among XRpc's dependencies. With
     * {@code http}, ALPN offers {@code h2} and {@code http/1.1} to clients that ask (browsers, curl,
     * gRPC-style HTTP/2 clients); XRpc clients ask for none, and the connection's first bytes tell
     * its protocol either way ({@link ProtocolSniffer}).
     */
    static SslContext serverContext(TlsConfig tls, boolean http) {
        try {
            SslContextBuilder b = SslContextBuilder.forServer(tls.keys())
                    .sslProvider(SslProvider.JDK)
                    .clientAuth(
                            switch (tls.clientAuth()) {
                                case NONE -> ClientAuth.NONE;
                                case OPTIONAL -> ClientAuth.OPTIONAL;
                                case REQUIRE -> ClientAuth.REQUIRE;
                            });
            if (tls.trust() != null) {
                b.trustManager(tls.trust());
            }
            if (http) {
                b.applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2,
                        ApplicationProtocolNames.HTTP_1_1));
            }
            return b.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("server TLS: " + e.getMessage(), e);
        }
    }

    static SslContext clientContext(TlsConfig tls) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .endpointIdentificationAlgorithm(tls.verifyHostname() ? "HTTPS" : null);
            if (tls.trust() != null) {
                b.trustManager(tls.trust());
            }
            if (tls.keys() != null) {
                b.keyManager(tls.keys());
            }
            return b.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("client TLS: " + e.getMessage(), e);
        }
    }

    private static final String RECEIVED = "Received fatal alert: ";

    /** The alerts a server sends when it refuses a client's certificate. */
    private static final List<String> CERTIFICATE_ALERTS = List.of(
            "certificate_required",
            "bad_certificate",
            "unknown_ca",
            "certificate_unknown",
            "unsupported_certificate",
            "access_denied");

    /**
     * The alert, when {@code cause} is the server refusing this client's certificate after a
     * handshake that completed on the client's side (TLS 1.3); {@code null} for anything else,
     * including any failure during the handshake, which connecting reports itself.
     */
    static String certificateRefusal(ChannelHandlerContext ctx, Throwable cause) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
            return null;
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            // "Received fatal alert: bad_certificate"; JDK 25 puts "(bad_certificate) " in front.
            String m = t instanceof SSLException ? t.getMessage() : null;
            int at = m == null ? -1 : m.indexOf(RECEIVED);
            if (at >= 0) {
                String alert = m.substring(at + RECEIVED.length()).trim();
                return CERTIFICATE_ALERTS.contains(alert) ? m : null;
            }
        }
        return null;
    }

    /** What a failed client handshake means, in words. */
    static String describe(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof NotSslRecordException) {
                return "the provider answered in plaintext: it is not configured for TLS";
            }
        }
        return String.valueOf(cause);
    }

    /**
     * First on a server's pipeline: looks at the first bytes of a connection. A peer on the other
     * protocol (plaintext XRpc on a TLS server, a TLS handshake on a plaintext one) is answered
     * with a refusal naming the problem and closed, instead of a handshake or framing error it
     * cannot read; any other peer goes on to TLS (or straight to the frames) and this leaves.
     */
    static final class Gate extends ByteToMessageDecoder {
        /** Bytes {@link SslHandler#isEncrypted} needs. */
        private static final int LOOK = 5;

        private final SslContext context;
        private final String endpoint;
        private boolean refused;

        private final long timeoutMillis;
        private ScheduledFuture<?> timeout;

        /**
         * @param context       the server's TLS, or null for a plaintext server
         * @param timeoutMillis how long a peer has to send its first bytes (the frame timeout);
         *                      a peer that sends fewer than five and waits is closed after it
         */
        Gate(SslContext context, String endpoint, long timeoutMillis) {
            this.context = context;
            this.endpoint = endpoint;
            this.timeoutMillis = timeoutMillis;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            timeout = ctx.executor()
                    .schedule(
                            () -> {
                                ctx.close(); // nothing else is read or written before the gate decides
                            },
                            timeoutMillis,
                            TimeUnit.MILLISECONDS);
        }

        @Override
        protected void handlerRemoved0(ChannelHandlerContext ctx) {
            if (timeout != null) {
                timeout.cancel(false);
            }
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (refused) {
                in.skipBytes(in.readableBytes()); // nothing more is read from this peer
                return;
            }
            if (in.readableBytes() < LOOK) {
                return;
            }
            boolean tls = SslHandler.isEncrypted(in, false);
            if (tls == (context != null)) {
                if (context != null) {
                    ctx.pipeline().addAfter(ctx.name(), "tls", context.newHandler(ctx.alloc()));
                }
                ctx.pipeline().remove(this); // what it holds goes on to the next handler
                return;
            }
            refused = true;
            if (timeout != null) {
                timeout.cancel(false);
            }
            in.skipBytes(in.readableBytes());
            String why = context != null
                    ? "server " + endpoint + " requires TLS; this client connected in plaintext"
                    : "server " + endpoint + " does not use TLS; this client started a TLS handshake";
            ConnectionLimits.sendRefusal(ctx, why);
        }
    }
}
