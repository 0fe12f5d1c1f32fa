package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import io.xrpc.common.ServiceKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

    @Option(
            names = "--token",
            description = "Sent as the calls' credentials (Bearer <token>); needs TLS, or"
                    + " --plaintext-token on loopback. Visible to every local user in the process list: prefer --token-file"
                    + " or the environment variable " + TOKEN_VARIABLE + ".")
    String token;

    @Option(names = "--token-file", description = "A file holding the token (its first line), read at start.")
    Path tokenFile;

    @Option(
            names = "--plaintext-token",
            description = "Send the token without TLS: only to a provider named with"
                    + " --address on a loopback address (development).")
    boolean plaintextToken;

    /** The environment variable a token is read from when neither --token nor --token-file is given. */
    public static final String TOKEN_VARIABLE = "XRPC_TOKEN";

    @Option(names = "--tls", description = "Connect with TLS, trusting the JDK's authorities or --tls-trust.")
    boolean tls;

    @Option(names = "--tls-trust", description = "PEM file of the certificates to trust (implies --tls).")
    Path trust;

    @Option(names = "--tls-cert", description = "PEM certificate chain to present (mutual TLS; with --tls-key).")
    Path cert;

    @Option(names = "--tls-key", description = "PEM PKCS#8 private key of --tls-cert.")
    Path key;

    /** Whether --tls was given (for the stress tool's own provider and callers without --target). */
    public boolean tls() {
        return tls;
    }

    /** {@code iface} in the version and group given. */
    public ServiceKey key(String iface) {
        return new ServiceKey(iface, version, group);
    }

    /** The token given (--token, --token-file, or {@value #TOKEN_VARIABLE}), or null. */
    public String token() {
        if (token == null && tokenFile != null) {
            try {
                String first = Files.readAllLines(tokenFile).stream()
                        .findFirst()
                        .orElse("")
                        .trim();
                if (first.isEmpty()) {
                    throw new IllegalArgumentException("--token-file " + tokenFile + ": empty");
                }
                token = first;
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "--token-file " + tokenFile + ": cannot read it: " + e.getMessage(), e);
            }
        }
        if (token == null) {
            String fromEnvironment = System.getenv(TOKEN_VARIABLE);
            if (fromEnvironment != null && !fromEnvironment.isBlank()) {
                token = fromEnvironment.trim();
            }
        }
        return token;
    }

    /**
     * Refuses {@code --plaintext-token} unless the calls go to {@code address} (a {@code host:port},
     * null for a registry) and it is a loopback address: a token sent in plaintext elsewhere can be
     * read and replayed by anyone on the path.
     */
    public void checkPlaintextToken(String address) {
        if (!plaintextToken || token() == null) {
            return;
        }
        if (address == null) {
            throw new IllegalArgumentException(
                    "--plaintext-token: only with --address on a loopback address (the"
                            + " providers a registry lists may be anywhere, and the token would cross the network in plaintext)");
        }
        String host = address.startsWith("[")
                ? address.substring(1, Math.max(1, address.indexOf(']')))
                : address.contains(":") ? address.substring(0, address.lastIndexOf(':')) : address;
        boolean loopback;
        try {
            loopback = Arrays.stream(InetAddress.getAllByName(host)).allMatch(InetAddress::isLoopbackAddress);
        } catch (UnknownHostException e) {
            loopback = false;
        }
        if (!loopback) {
            throw new IllegalArgumentException("--plaintext-token: " + host + " is not a loopback address; the token"
                    + " would cross the network in plaintext (use --tls)");
        }
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
        String t = token();
        if (t != null) {
            String bearer = t.startsWith("Bearer ") ? t : "Bearer " + t;
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
