package io.xrpc.benchmark.stress;

import io.xrpc.config.TlsConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for the stress tool's XRpc contender ({@code --tls}): a self-signed key for 127.0.0.1 made
 * once per run by the JDK's keytool, which the provider serves and its callers trust.
 */
final class BenchTls {
    private static final char[] PASSWORD = "xrpc-bench".toCharArray();
    private static final String ALIAS = "provider";

    private BenchTls() {}

    /** Makes a PKCS#12 key store holding a new EC key and its certificate for 127.0.0.1 and localhost. */
    static Path createKeyStore() throws Exception {
        Path dir = Files.createTempDirectory("xrpc-stress-tls");
        Path ks = dir.resolve("provider.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(
                        keytool.toString(),
                        "-genkeypair",
                        "-alias",
                        ALIAS,
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=ip:127.0.0.1,dns:localhost",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        ks.toString(),
                        "-storepass",
                        new String(PASSWORD)))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool could not make the benchmark's TLS key: " + out);
        }
        ks.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return ks;
    }

    static TlsConfig server(Path keyStore) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(keyStore), PASSWORD);
        return TlsConfig.server(keys).build();
    }

    static TlsConfig client(Path keyStore) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry(ALIAS, load(keyStore).getCertificate(ALIAS));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        return TlsConfig.client().trust(trust).build();
    }

    private static KeyStore load(Path keyStore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks.load(in, PASSWORD);
        }
        return ks;
    }
}
