package io.xrpc.benchmark.cli;

import io.xrpc.config.TlsConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** TLS of the command line and the stress tool's --target, from PEM files: what to trust, and a chain and key to present. */
public final class Pem {
    private Pem() {}

    /**
     * A client's TLS: trusting the certificates in {@code trust} (null: the JDK's authorities),
     * presenting {@code cert} with {@code key} (PKCS#8) when both are given (mutual TLS).
     */
    public static TlsConfig clientTls(Path trust, Path cert, Path key) throws Exception {
        TlsConfig.Builder b = TlsConfig.client();
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (trust == null) {
            tmf.init((KeyStore) null); // the JDK's authorities
        } else {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : certificates(trust)) {
                ks.setCertificateEntry("trusted-" + i++, c);
            }
            tmf.init(ks);
        }
        b.trust(tmf);
        if (cert != null || key != null) {
            if (cert == null || key == null) {
                throw new IllegalArgumentException("--tls-cert and --tls-key go together");
            }
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            char[] none = new char[0];
            ks.setKeyEntry("client", privateKey(key), none, certificates(cert).toArray(new Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, none);
            b.keys(kmf);
        }
        return b.build();
    }

    private static Collection<? extends Certificate> certificates(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            Collection<? extends Certificate> all =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (all.isEmpty()) {
                throw new IllegalArgumentException(pem + " holds no PEM certificate");
            }
            return all;
        }
    }

    private static PrivateKey privateKey(Path pem) throws Exception {
        String text = Files.readString(pem);
        int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = text.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(pem + " holds no PKCS#8 key (-----BEGIN PRIVATE KEY-----);"
                    + " convert one with: openssl pkcs8 -topk8 -nocrypt -in key.pem");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + 27, end));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // try the next
            }
        }
        throw new IllegalArgumentException(pem + ": a key neither RSA, EC nor Ed25519");
    }
}
