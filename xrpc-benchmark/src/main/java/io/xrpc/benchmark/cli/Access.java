package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import io.xrpc.common.ServiceKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * How a tool reaches a user's service, the options the {@code xrpc} command line and the stress
 * tool's {@code --target} share: the service's version and group, TLS from PEM files, and a token.
 */
public final class Access {
    @Option(names = "--service-version", description = "The service's version.")
    String version;

    @Option(names = "--group", description = "The service's group.")
    String group;

    @Option(names = "--token", description = "Sent as the calls' credentials (Bearer <token>); needs TLS, or"
            + " --plaintext-token on loopback.")
    String token;

    @Option(names = "--plaintext-token", description = "Send --token without TLS (development on loopback only).")
    boolean plaintextToken;

    @Option(names = "--tls", description = "Connect with TLS, trusting the JDK's authorities or --tls-trust.")
    boolean tls;

    @Option(names = "--tls-trust", description = "PEM file of the certificates to trust (implies --tls).")
    Path trust;

    @Option(names = "--tls-cert", description = "PEM certificate chain to present (mutual TLS; with --tls-key).")
    Path cert;

    @Option(names = "--tls-key", description = "PEM PKCS#8 private key of --tls-cert.")
    Path key;

    /** {@code iface} in the version and group given. */
    public ServiceKey key(String iface) {
        return new ServiceKey(iface, version, group);
    }

    /** The token given, or null. */
    public String token() {
        return token;
    }

    /** Takes a token from elsewhere (a forked JVM's environment) when none was given. */
    public void tokenIfAbsent(String fromElsewhere) {
        if (token == null) {
            token = fromElsewhere;
        }
    }

    /** This TLS and token on {@code b}. */
    public RpcClient.Builder applyTo(RpcClient.Builder b) throws Exception {
        if (tls || trust != null || cert != null || key != null) {
            b.tls(Pem.clientTls(trust, cert, key));
        }
        if (token != null) {
            String bearer = token.startsWith("Bearer ") ? token : "Bearer " + token;
            b.credentials(inv -> bearer).credentialsOverPlaintext(plaintextToken);
        }
        return b;
    }

    /** These options as a command line gives them, paths made absolute, the token left out (it is a secret). */
    public List<String> argsWithoutToken() {
        List<String> a = new ArrayList<>();
        if (version != null) {
            a.addAll(List.of("--service-version", version));
        }
        if (group != null) {
            a.addAll(List.of("--group", group));
        }
        if (plaintextToken) {
            a.add("--plaintext-token");
        }
        if (tls) {
            a.add("--tls");
        }
        String[] names = {"--tls-trust", "--tls-cert", "--tls-key"};
        Path[] paths = {trust, cert, key};
        for (int i = 0; i < names.length; i++) {
            if (paths[i] != null) {
                a.addAll(List.of(names[i], paths[i].toAbsolutePath().toString()));
            }
        }
        return a;
    }
}
