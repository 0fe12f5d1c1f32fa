package io.xrpc.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.TlsConfig;
import io.xrpc.server.Authenticator;
import io.xrpc.server.RpcServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS and mutual TLS between a real server and client on loopback, with certificates made here
 * (netty-pkitesting): no key material is in the repository.
 */
class TlsTest {
    public interface Echo {
        String echo(String s);
    }

    static X509Bundle ca;
    static X509Bundle otherCa;
    static X509Bundle serverCert;
    static X509Bundle elsewhereCert;
    static X509Bundle clientCert;
    static X509Bundle strangerCert;

    @BeforeAll
    static void makeCertificates() throws Exception {
        ca = new CertificateBuilder()
                .subject("CN=XRpc test CA")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        otherCa = new CertificateBuilder()
                .subject("CN=Someone else's CA")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        serverCert = new CertificateBuilder()
                .subject("CN=localhost")
                .addSanDnsName("localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .ecp256()
                .buildIssuedBy(ca);
        elsewhereCert = new CertificateBuilder()
                .subject("CN=elsewhere.example")
                .addSanDnsName("elsewhere.example")
                .addExtendedKeyUsageServerAuth()
                .ecp256()
                .buildIssuedBy(ca);
        clientCert = new CertificateBuilder()
                .subject("CN=checkout")
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
        strangerCert = new CertificateBuilder()
                .subject("CN=stranger")
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(otherCa);
    }

    private static RpcServer server(TlsConfig tls) {
        return RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .tls(tls)
                .service(Echo.class, s -> "echo " + s)
                .build()
                .start();
    }

    private static Echo proxy(RpcClient client, RpcServer server) {
        // A long timeout: a refusal must come from the peer, never from waiting the deadline out.
        return client.proxy(
                Echo.class,
                ReferenceOptions.builder()
                        .address(server.endpoint())
                        .timeout(Duration.ofSeconds(20))
                        .retries(0)
                        .build());
    }

    private static void failsSaying(Echo echo, String words) {
        assertThatThrownBy(() -> echo.echo("x")).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.status()).as("refused at once, safe to send elsewhere").isEqualTo(RpcStatus.UNAVAILABLE);
            assertThat(e.getMessage()).containsIgnoringCase(words);
            System.out.println("TLS refusal: " + e.status() + ": " + e.getMessage());
        });
    }

    @Test
    void callsGoOverTlsToAProviderTheClientVerifies() throws Exception {
        RpcServer server =
                server(TlsConfig.server(serverCert.toKeyManagerFactory()).build());
        try (RpcClient client = RpcClient.builder()
                .tls(TlsConfig.client().trust(ca.toTrustManagerFactory()).build())
                .build()) {
            assertThat(proxy(client, server).echo("secret")).isEqualTo("echo secret");
            // A generic call (no interface on the caller's side) goes the same way.
            assertThat(client.generic(
                                    Echo.class.getName(),
                                    ReferenceOptions.builder()
                                            .address(server.endpoint())
                                            .build())
                            .invoke("echo", List.of("java.lang.String"), List.of("plain")))
                    .isEqualTo("echo plain");
        } finally {
            server.close();
        }
    }

    @Test
    void aProviderWhoseCertificateNamesAnotherHostIsRefusedUnlessHostnameCheckingIsOff() throws Exception {
        RpcServer server =
                server(TlsConfig.server(elsewhereCert.toKeyManagerFactory()).build());
        try (RpcClient verifying = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .build())
                        .build();
                RpcClient lax = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .verifyHostname(false)
                                .build())
                        .build()) {
            failsSaying(proxy(verifying, server), "TLS handshake failed");
            assertThat(proxy(lax, server).echo("anyway")).isEqualTo("echo anyway");
        } finally {
            server.close();
        }
    }

    @Test
    void aProviderSignedByAnUntrustedAuthorityIsRefused() throws Exception {
        RpcServer server =
                server(TlsConfig.server(serverCert.toKeyManagerFactory()).build());
        try (RpcClient client = RpcClient.builder()
                .tls(TlsConfig.client().trust(otherCa.toTrustManagerFactory()).build())
                .build()) {
            failsSaying(proxy(client, server), "TLS handshake failed");
        } finally {
            server.close();
        }
    }

    @Test
    void aPlaintextClientIsToldTheServerRequiresTls() throws Exception {
        RpcServer server =
                server(TlsConfig.server(serverCert.toKeyManagerFactory()).build());
        try (RpcClient client = RpcClient.builder().build()) {
            failsSaying(proxy(client, server), "requires TLS");
        } finally {
            server.close();
        }
    }

    @Test
    void aTlsClientIsToldTheProviderIsNotConfiguredForTls() throws Exception {
        RpcServer server = server(null);
        try (RpcClient client = RpcClient.builder()
                .tls(TlsConfig.client().trust(ca.toTrustManagerFactory()).build())
                .build()) {
            failsSaying(proxy(client, server), "not configured for TLS");
        } finally {
            server.close();
        }
    }

    @Test
    void mutualTlsAdmitsOnlyClientsWithATrustedCertificate() throws Exception {
        RpcServer server = server(TlsConfig.server(serverCert.toKeyManagerFactory())
                .trust(ca.toTrustManagerFactory())
                .clientAuth(TlsConfig.ClientAuth.REQUIRE)
                .build());
        TlsConfig.Builder base = TlsConfig.client().trust(ca.toTrustManagerFactory());
        try (RpcClient withCert = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .keys(clientCert.toKeyManagerFactory())
                                .build())
                        .build();
                RpcClient without = RpcClient.builder().tls(base.build()).build();
                RpcClient stranger = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .keys(strangerCert.toKeyManagerFactory())
                                .build())
                        .build()) {
            assertThat(proxy(withCert, server).echo("trusted")).isEqualTo("echo trusted");
            failsSaying(proxy(without, server), "certificate");
            failsSaying(proxy(stranger, server), "certificate");
        } finally {
            server.close();
        }
    }

    /**
     * Before: the authenticator saw host and port only, so with client-auth optional it could not
     * tell a client with a trusted certificate from one without, nor with require one trusted
     * client from another. It now gets the verified chain, and interceptors see it too.
     */
    @Test
    void theAuthenticatorAndInterceptorsSeeWhichTrustedClientCalls() throws Exception {
        X509Bundle otherClient = new CertificateBuilder()
                .subject("CN=reporting")
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
        List<String> seen = new CopyOnWriteArrayList<>();
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .tls(TlsConfig.server(serverCert.toKeyManagerFactory())
                        .trust(ca.toTrustManagerFactory())
                        .clientAuth(TlsConfig.ClientAuth.OPTIONAL)
                        .build())
                .authenticator(Authenticator.withPeerCertificates(
                        (credentials, service, method, peer, chain) -> !chain.isEmpty()
                                        && chain.get(0)
                                                .getSubjectX500Principal()
                                                .getName()
                                                .equals("CN=checkout")
                                ? null
                                : "only the checkout service may call; this client presented "
                                        + (chain.isEmpty()
                                                ? "no certificate"
                                                : chain.get(0)
                                                        .getSubjectX500Principal()
                                                        .getName())))
                .interceptor((inv, next) -> {
                    seen.add(inv.peerCertificates()
                                    .get(0)
                                    .getSubjectX500Principal()
                                    .getName() + " chain of "
                            + inv.peerCertificates().size());
                    return next.proceed(inv);
                })
                .service(Echo.class, s -> "echo " + s)
                .build()
                .start();
        TlsConfig.Builder trusting = TlsConfig.client().trust(ca.toTrustManagerFactory());
        try (RpcClient checkout = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .keys(clientCert.toKeyManagerFactory())
                                .build())
                        .build();
                RpcClient reporting = RpcClient.builder()
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .keys(otherClient.toKeyManagerFactory())
                                .build())
                        .build();
                RpcClient anonymous = RpcClient.builder().tls(trusting.build()).build()) {
            assertThat(proxy(checkout, server).echo("in")).isEqualTo("echo in");
            assertThat(seen).containsExactly("CN=checkout chain of 1");
            assertThatThrownBy(() -> proxy(reporting, server).echo("x"))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                        assertThat(e.getMessage()).contains("this client presented CN=reporting");
                    });
            assertThatThrownBy(() -> proxy(anonymous, server).echo("x"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.getMessage()).contains("presented no certificate"));
            assertThat(seen).hasSize(1);
        } finally {
            server.close();
        }
    }

    @Test
    void aPeerThatSendsTooFewBytesToBeToldApartIsClosedAfterTheFrameTimeout() throws Exception {
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .frameTimeout(Duration.ofMillis(300))
                .tls(TlsConfig.server(serverCert.toKeyManagerFactory()).build())
                .service(Echo.class, s -> s)
                .build()
                .start();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(new byte[] {0x16, 0x03}); // two bytes, then silence
            socket.getOutputStream().flush();
            // Before: held until the reader went idle, three heartbeats (90 s by default).
            assertThat(socket.getInputStream().read())
                    .as("closed by the server")
                    .isEqualTo(-1);
        } finally {
            server.close();
        }
    }

    @Test
    void aTlsServerOverItsConnectionLimitRefusesInsideTls() throws Exception {
        RpcServer server = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .maxConnections(1)
                .tls(TlsConfig.server(serverCert.toKeyManagerFactory()).build())
                .service(Echo.class, s -> "echo " + s)
                .build()
                .start();
        TlsConfig tls = TlsConfig.client().trust(ca.toTrustManagerFactory()).build();
        try (RpcClient first = RpcClient.builder().tls(tls).build();
                RpcClient second = RpcClient.builder().tls(tls).build()) {
            assertThat(proxy(first, server).echo("in")).isEqualTo("echo in");
            // Before: the refusal went out in plaintext and this client read "not configured for TLS".
            failsSaying(proxy(second, server), "refused the connection");
        } finally {
            server.close();
        }
    }

    @Test
    void configurationsAreCheckedWhenBuilt() throws Exception {
        assertThatThrownBy(() -> TlsConfig.server(serverCert.toKeyManagerFactory())
                        .clientAuth(TlsConfig.ClientAuth.REQUIRE)
                        .build())
                .hasMessageContaining("needs trust");
        assertThatThrownBy(() -> RpcServer.builder().tls(TlsConfig.client().build()))
                .hasMessageContaining("expected: TlsConfig.server");
        assertThatThrownBy(() -> RpcClient.builder()
                        .tls(TlsConfig.server(serverCert.toKeyManagerFactory()).build()))
                .hasMessageContaining("expected: TlsConfig.client");
    }

    /**
     * Before: a client without TLS attached its token to the first request, ahead of the server's
     * "requires TLS" refusal, and a relay on the path recorded it. Credentials now go only over TLS.
     */
    @Test
    void callCredentialsAreNeverWrittenInPlaintext() throws Exception {
        String token = "Bearer tok-" + UUID.randomUUID();
        RpcServer tlsServer =
                server(TlsConfig.server(serverCert.toKeyManagerFactory()).build());
        RpcServer plainServer = server(null);
        try (Relay toTls = new Relay(tlsServer.endpoint().port());
                Relay toPlain = new Relay(plainServer.endpoint().port());
                RpcClient plaintext =
                        RpcClient.builder().credentials(inv -> token).build();
                RpcClient overTls = RpcClient.builder()
                        .credentials(inv -> token)
                        .tls(TlsConfig.client()
                                .trust(ca.toTrustManagerFactory())
                                .build())
                        .build();
                RpcClient optedOut = RpcClient.builder()
                        .credentials(inv -> token)
                        .credentialsOverPlaintext(true)
                        .build()) {
            for (Relay relay : List.of(toTls, toPlain)) {
                Echo echo = plaintext.proxy(
                        Echo.class,
                        ReferenceOptions.builder()
                                .address("127.0.0.1:" + relay.port())
                                .timeout(Duration.ofSeconds(20))
                                .retries(0)
                                .build());
                assertThatThrownBy(() -> echo.echo("x")).isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                    assertThat(e.getMessage()).contains("sent only over TLS").doesNotContain(token);
                });
            }
            Echo secure = overTls.proxy(
                    Echo.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + toTls.port())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            assertThat(secure.echo("y")).isEqualTo("echo y");
            assertThat(toTls.recorded()).as("bytes the relay saw").isNotEmpty().doesNotContain(token);
            assertThat(toPlain.recorded()).isEmpty();

            // The documented opt-out, for development on loopback: then anyone on the path reads it.
            Echo exposed = optedOut.proxy(
                    Echo.class,
                    ReferenceOptions.builder()
                            .address("127.0.0.1:" + toPlain.port())
                            .timeout(Duration.ofSeconds(20))
                            .retries(0)
                            .build());
            assertThat(exposed.echo("z")).isEqualTo("echo z");
            assertThat(toPlain.recorded()).contains(token);
        } finally {
            tlsServer.close();
            plainServer.close();
        }
    }

    /** A TCP relay on loopback that passes bytes both ways and keeps what clients sent. */
    static final class Relay implements AutoCloseable {
        private final ServerSocket listener;
        private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        Relay(int targetPort) throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            daemon(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket in = listener.accept();
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                        sockets.add(in);
                        sockets.add(out);
                        daemon(() -> pump(in, out, true));
                        daemon(() -> pump(out, in, false));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r, "relay");
            t.setDaemon(true);
            t.start();
        }

        private void pump(Socket from, Socket to, boolean record) {
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = from.getInputStream().read(buf)) > 0) {
                    if (record) {
                        synchronized (sent) {
                            sent.write(buf, 0, n);
                        }
                    }
                    to.getOutputStream().write(buf, 0, n);
                }
            } catch (IOException closed) {
                // either side went away
            } finally {
                try {
                    to.shutdownOutput();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }

        int port() {
            return listener.getLocalPort();
        }

        /** What clients sent through the relay, as ISO-8859-1 text so that any byte sequence is searchable. */
        String recorded() {
            synchronized (sent) {
                return sent.toString(StandardCharsets.ISO_8859_1);
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void httpClientsGetHttp2ThroughAlpnAndHttp11InsideTheSameTls() throws Exception {
        RpcServer server =
                server(TlsConfig.server(serverCert.toKeyManagerFactory()).build());
        try {
            javax.net.ssl.SSLContext trusting = javax.net.ssl.SSLContext.getInstance("TLS");
            trusting.init(null, ca.toTrustManagerFactory().getTrustManagers(), null);
            for (java.net.http.HttpClient.Version v :
                    List.of(java.net.http.HttpClient.Version.HTTP_2, java.net.http.HttpClient.Version.HTTP_1_1)) {
                java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                        .sslContext(trusting)
                        .version(v)
                        .build();
                java.net.http.HttpResponse<String> r = http.send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create("https://localhost:"
                                        + server.endpoint().port() + "/" + Echo.class.getName() + "/echo"))
                                .header("content-type", "application/json")
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("\"x\""))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(r.version()).as("negotiated by ALPN").isEqualTo(v);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("\"echo x\"");
            }
            // XRpc clients, which ask ALPN for nothing, are served on the same port as before.
            try (RpcClient client = RpcClient.builder()
                    .tls(TlsConfig.client().trust(ca.toTrustManagerFactory()).build())
                    .build()) {
                assertThat(proxy(client, server).echo("y")).isEqualTo("echo y");
            }
        } finally {
            server.close();
        }
    }
}
