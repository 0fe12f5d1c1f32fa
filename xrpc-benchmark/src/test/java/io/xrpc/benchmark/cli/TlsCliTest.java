package io.xrpc.benchmark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.benchmark.stress.StressTool;
import io.xrpc.config.TlsConfig;
import io.xrpc.server.RpcServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's and the stress tool's TLS from PEM files, against a provider that requires
 * mutual TLS: certificates made at test time (netty-pkitesting), none in the repository.
 */
class TlsCliTest {
    @TempDir
    static Path pem;

    static RpcServer provider;
    static Path trust;
    static Path cert;
    static Path key;

    @BeforeAll
    static void start() throws Exception {
        X509Bundle ca = new CertificateBuilder()
                .subject("CN=XRpc test CA")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        X509Bundle server = new CertificateBuilder()
                .subject("CN=localhost")
                .addSanDnsName("localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .ecp256()
                .buildIssuedBy(ca);
        X509Bundle client = new CertificateBuilder()
                .subject("CN=load-test")
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
        trust = Files.writeString(pem.resolve("ca.pem"), ca.getCertificatePEM());
        cert = Files.writeString(pem.resolve("client.pem"), client.getCertificatePathPEM());
        key = Files.writeString(pem.resolve("client-key.pem"), client.getPrivateKeyPEM());
        provider = RpcServer.builder()
                .host("127.0.0.1")
                .port(0)
                .tls(TlsConfig.server(server.toKeyManagerFactory())
                        .trust(ca.toTrustManagerFactory())
                        .clientAuth(TlsConfig.ClientAuth.REQUIRE)
                        .build())
                .service(UserService.class, new UserServiceImpl())
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        provider.close();
    }

    private static int xrpc(StringWriter out, String... args) {
        return XrpcCli.run(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), args);
    }

    @Test
    void theCommandLinePresentsItsCertificateFromPemFiles() throws Exception {
        StringWriter out = new StringWriter();
        int exit = xrpc(
                out,
                "call",
                UserService.class.getName() + "/getUser",
                "[3]",
                "--address",
                provider.endpoint().toString(),
                "--tls-trust",
                trust.toString(),
                "--tls-cert",
                cert.toString(),
                "--tls-key",
                key.toString());
        assertThat(exit).as(out.toString()).isZero();
        assertThat(new ObjectMapper().readTree(out.toString()).get("name").asText())
                .isNotBlank();

        StringWriter refused = new StringWriter();
        assertThat(xrpc(
                        refused,
                        "call",
                        UserService.class.getName() + "/getUser",
                        "[3]",
                        "--types",
                        "long",
                        "--address",
                        provider.endpoint().toString(),
                        "--tls-trust",
                        trust.toString(),
                        "--timeout",
                        "3s"))
                .as("no client certificate: " + refused)
                .isEqualTo(17);
        assertThat(refused.toString()).contains("\"UNAVAILABLE\"").contains("requires a client certificate");
    }

    @Test
    void theStressToolsCallersInTheirOwnJvmUseTheSameTls(@TempDir Path out) throws Exception {
        var levels = StressTool.run(
                "--target",
                provider.endpoint().toString(),
                "--call",
                UserService.class.getName() + "/getUser",
                "--args",
                "[2]",
                "--tls-trust",
                trust.toString(),
                "--tls-cert",
                cert.toString(),
                "--tls-key",
                key.toString(),
                "--threads",
                "2",
                "--duration",
                "1s",
                "--warmup",
                "200ms",
                "--max-warmup",
                "200ms",
                "--quiet",
                "--out",
                out.toString());
        assertThat(levels).singleElement().satisfies(l -> {
            assertThat(l.calls()).isPositive();
            assertThat(l.errorCount()).as(l.errors().toString()).isZero();
        });
    }
}
