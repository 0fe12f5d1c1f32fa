package io.xrpc.server;

import io.xrpc.common.Endpoint;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Decides, before a request's arguments are read, whether its credentials (the
 * {@link io.xrpc.common.Invocation#CREDENTIALS} attachment) admit it. A refused call is
 * answered {@link io.xrpc.common.RpcStatus#UNAUTHENTICATED} with the reason, and nothing of it is
 * deserialized or run. Runs where the method runs, once per request: on a call thread, where it
 * may be slow (a token check against a key set) though it holds that thread meanwhile, or, for a
 * method marked {@link io.xrpc.common.NonBlocking}, on the event loop, where it must not block.
 */
@FunctionalInterface
public interface Authenticator {

    /**
     * {@code null} to admit the call; otherwise why it is refused, which the caller receives.
     *
     * @param credentials the request's credentials, or {@code null} when it carries none
     * @param peer        the address the request came from
     */
    String refuse(String credentials, ServiceKey service, MethodDescriptor method, Endpoint peer);

    /**
     * What the server calls: as {@link #refuse(String, ServiceKey, MethodDescriptor, Endpoint)}
     * with the client's verified certificate chain too (mutual TLS; its own certificate first,
     * empty when it presented none or the connection is plaintext). By default the chain is not
     * looked at; {@link #withPeerCertificates} makes an authenticator that decides by it.
     */
    default String refuse(
            String credentials,
            ServiceKey service,
            MethodDescriptor method,
            Endpoint peer,
            List<X509Certificate> peerCertificates) {
        return refuse(credentials, service, method, peer);
    }

    /**
     * An authenticator that sees the client's certificate chain: with client-auth {@code optional}
     * it tells a client with a trusted certificate from one without, with {@code require} one
     * trusted client from another (by subject or subject alternative name), as gRPC's
     * {@code SSLSession} attribute does.
     */
    static Authenticator withPeerCertificates(ByCertificate check) {
        return new Authenticator() {
            @Override
            public String refuse(String credentials, ServiceKey service, MethodDescriptor method, Endpoint peer) {
                return refuse(credentials, service, method, peer, List.of());
            }

            @Override
            public String refuse(
                    String credentials,
                    ServiceKey service,
                    MethodDescriptor method,
                    Endpoint peer,
                    List<X509Certificate> peerCertificates) {
                return check.refuse(credentials, service, method, peer, peerCertificates);
            }
        };
    }

    /** An authenticator's decision with the client's certificate chain: see {@link #withPeerCertificates}. */
    @FunctionalInterface
    interface ByCertificate {
        /**
         * {@code null} to admit the call; otherwise why it is refused.
         *
         * @param peerCertificates the client's verified chain, its own certificate first; empty
         *                         when it presented none or the connection is plaintext
         */
        String refuse(
                String credentials,
                ServiceKey service,
                MethodDescriptor method,
                Endpoint peer,
                List<X509Certificate> peerCertificates);
    }
}
