package io.xrpc.spring.autoconfigure;

import io.xrpc.config.TlsConfig;
import java.util.Locale;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * XRpc's TLS from Spring Boot SSL bundles: the bundle's key store and trust store. Its protocol
 * and cipher options are not applied (the JDK's defaults are used); a bundle that sets them is
 * refused rather than silently weakened or narrowed differently from what it says.
 */
final class XrpcTls {
    private XrpcTls() {}

    static TlsConfig server(ObjectProvider<SslBundles> bundles, XrpcProperties.ServerSsl ssl) {
        return reported("xrpc.server.ssl.bundle", ssl.bundle(), () -> serverTls(bundles.getIfAvailable(), ssl));
    }

    static TlsConfig client(ObjectProvider<SslBundles> bundles, XrpcProperties.ClientSsl ssl) {
        return reported("xrpc.client.ssl.bundle", ssl.bundle(), () -> clientTls(bundles.getIfAvailable(), ssl));
    }

    /** {@code tls}'s configuration, or its failure as a start-up report naming {@code property}. */
    private static TlsConfig reported(String property, String name, Supplier<TlsConfig> tls) {
        try {
            return tls.get();
        } catch (RuntimeException e) {
            throw new XrpcStartupException(
                    "XRpc cannot use the SSL bundle " + property + "=" + name + ": " + e.getMessage(),
                    "Define the bundle under spring.ssl.bundle.pem." + name + " (or .jks." + name
                            + ") with certificate, key and trust files that exist and can be read, or remove "
                            + property
                            + " to go without TLS.",
                    e);
        }
    }

    private static TlsConfig serverTls(SslBundles bundles, XrpcProperties.ServerSsl ssl) {
        SslBundle bundle = bundle(bundles, ssl.bundle(), "xrpc.server.ssl.bundle");
        if (bundle.getStores().getKeyStore() == null) {
            throw new IllegalStateException("xrpc.server.ssl.bundle=" + ssl.bundle() + " has no key store: a"
                    + " server needs its certificate and private key (spring.ssl.bundle.*." + ssl.bundle()
                    + ".keystore)");
        }
        TlsConfig.Builder b =
                TlsConfig.server(bundle.getManagers().getKeyManagerFactory()).clientAuth(ssl.clientAuth());
        if (ssl.clientAuth() != TlsConfig.ClientAuth.NONE) {
            if (bundle.getStores().getTrustStore() == null) {
                // Spring would hand over the JDK's public authorities: any public certificate would pass.
                throw new IllegalStateException(
                        "xrpc.server.ssl.client-auth=" + ssl.clientAuth().name().toLowerCase(Locale.ROOT)
                                + " needs a trust store in bundle " + ssl.bundle()
                                + " (spring.ssl.bundle.*." + ssl.bundle() + ".truststore): the authorities client"
                                + " certificates must come from");
            }
            b.trust(bundle.getManagers().getTrustManagerFactory());
        }
        return b.build();
    }

    private static TlsConfig clientTls(SslBundles bundles, XrpcProperties.ClientSsl ssl) {
        SslBundle bundle = bundle(bundles, ssl.bundle(), "xrpc.client.ssl.bundle");
        TlsConfig.Builder b = TlsConfig.client()
                .trust(bundle.getManagers().getTrustManagerFactory())
                .verifyHostname(ssl.verifyHostname());
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
        SslBundle bundle = bundles.getBundle(name); // an unknown name fails naming it
        if (bundle.getOptions().getCiphers() != null || bundle.getOptions().getEnabledProtocols() != null) {
            throw new IllegalStateException(property + "=" + name + ": the bundle's ciphers and enabled-protocols"
                    + " options are not supported by XRpc yet (it uses the JDK's defaults); remove them");
        }
        return bundle;
    }
}
