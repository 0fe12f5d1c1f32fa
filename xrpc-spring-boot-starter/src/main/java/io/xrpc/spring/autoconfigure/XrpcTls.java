package io.xrpc.spring.autoconfigure;

import io.xrpc.transport.TlsConfig;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** XRpc's TLS from Spring Boot SSL bundles, the way Boot's own servers and clients take theirs. */
final class XrpcTls {
    private XrpcTls() {
    }

    static TlsConfig server(SslBundles bundles, XrpcProperties.ServerSsl ssl) {
        SslBundle bundle = bundle(bundles, ssl.getBundle(), "xrpc.server.ssl.bundle");
        TlsConfig.Builder b = TlsConfig.server(bundle.getManagers().getKeyManagerFactory())
                .clientAuth(ssl.getClientAuth());
        if (ssl.getClientAuth() != TlsConfig.ClientAuth.NONE) {
            b.trust(bundle.getManagers().getTrustManagerFactory());
        }
        return b.build();
    }

    static TlsConfig client(SslBundles bundles, XrpcProperties.ClientSsl ssl) {
        SslBundle bundle = bundle(bundles, ssl.getBundle(), "xrpc.client.ssl.bundle");
        TlsConfig.Builder b = TlsConfig.client().trust(bundle.getManagers().getTrustManagerFactory())
                .verifyHostname(ssl.isVerifyHostname());
        if (bundle.getStores().getKeyStore() != null) {
            b.keys(bundle.getManagers().getKeyManagerFactory()); // presented when a server asks (mutual TLS)
        }
        return b.build();
    }

    private static SslBundle bundle(SslBundles bundles, String name, String property) {
        if (bundles == null) {
            throw new IllegalStateException(property + "=" + name + " names an SSL bundle, but there are none:"
                    + " define it under spring.ssl.bundle.pem." + name + " or spring.ssl.bundle.jks." + name);
        }
        return bundles.getBundle(name); // an unknown name fails naming it
    }
}
