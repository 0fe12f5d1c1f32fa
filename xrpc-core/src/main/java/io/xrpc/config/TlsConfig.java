package io.xrpc.config;

import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Transport security for a server or a client, in JDK terms: key managers (this side's
 * certificate and private key), trust managers (the certificates this side accepts from its peer)
 * and, on a server, whether clients must present a certificate. Immutable.
 *
 * <p>A server needs keys; it verifies client certificates against {@code trust} when
 * {@link ClientAuth} asks for them (mutual TLS). A client trusts the JDK's default certificate
 * authorities unless given {@code trust}, presents {@code keys} when a server asks for a
 * certificate, and checks that the provider's certificate names the host it connected to
 * (hostname verification, on by default, as in HTTPS).
 *
 * <p>A side with TLS refuses a peer without it, naming the problem: a plaintext client calling a
 * TLS server is answered with a refusal saying the server requires TLS, and a TLS client that
 * reaches a plaintext server fails its connect saying the provider is not configured for TLS.
 */
public final class TlsConfig {

    /** Whether a server asks clients for a certificate. */
    public enum ClientAuth {
        /** Clients are not asked for a certificate. */
        NONE,
        /** Clients are asked; one that presents a certificate must present a trusted one. */
        OPTIONAL,
        /** Every client must present a trusted certificate (mutual TLS). */
        REQUIRE
    }

    private final KeyManagerFactory keys;
    private final TrustManagerFactory trust;
    private final ClientAuth clientAuth;
    private final boolean verifyHostname;
    private final boolean server;

    private TlsConfig(Builder b) {
        this.keys = b.keys;
        this.trust = b.trust;
        this.clientAuth = b.clientAuth;
        this.verifyHostname = b.verifyHostname;
        this.server = b.server;
    }

    /** A server's TLS, serving the certificate and key {@code keys} hold. */
    public static Builder server(KeyManagerFactory keys) {
        Builder b = new Builder(true);
        b.keys = Objects.requireNonNull(keys, "keys");
        return b;
    }

    /** A client's TLS: the JDK's default trust unless {@link Builder#trust} says otherwise. */
    public static Builder client() {
        return new Builder(false);
    }

    /** This side's certificate and key: required on a server, for mutual TLS on a client; else null. */
    public KeyManagerFactory keys() {
        return keys;
    }

    /** The certificates accepted from the peer, or null for the JDK's defaults. */
    public TrustManagerFactory trust() {
        return trust;
    }

    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** On a client: whether the provider's certificate must name the host connected to. */
    public boolean verifyHostname() {
        return verifyHostname;
    }

    /** Whether this is a server's configuration. */
    public boolean isServer() {
        return server;
    }

    public static final class Builder {
        private final boolean server;
        private KeyManagerFactory keys;
        private TrustManagerFactory trust;
        private ClientAuth clientAuth = ClientAuth.NONE;
        private boolean verifyHostname = true;

        private Builder(boolean server) {
            this.server = server;
        }

        /** On a client: the certificate and key presented when a server asks (mutual TLS). */
        public Builder keys(KeyManagerFactory keys) {
            this.keys = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** The certificates accepted from the peer (on a server: client certificates). */
        public Builder trust(TrustManagerFactory trust) {
            this.trust = Objects.requireNonNull(trust, "trust");
            return this;
        }

        /** On a server: whether clients must present a certificate; default {@code NONE}. */
        public Builder clientAuth(ClientAuth clientAuth) {
            if (!server) {
                throw new IllegalStateException("clientAuth is a server setting");
            }
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /**
         * On a client: whether the provider's certificate must name the host connected to; default
         * true. Turn it off only for certificates that cannot name their hosts.
         */
        public Builder verifyHostname(boolean verify) {
            if (server) {
                throw new IllegalStateException("verifyHostname is a client setting");
            }
            this.verifyHostname = verify;
            return this;
        }

        public TlsConfig build() {
            if (server && clientAuth != ClientAuth.NONE && trust == null) {
                throw new IllegalStateException("clientAuth " + clientAuth + " needs trust(...): the certificates"
                        + " client certificates are checked against");
            }
            return new TlsConfig(this);
        }
    }
}
