package io.xrpc.common;

import java.util.Objects;

/**
 * A provider address: host (name, IPv4 or IPv6 literal) and port.
 *
 * @param host host name or address literal, without brackets
 * @param port TCP port, 1 to 65535
 */
public record Endpoint(String host, int port) {

    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host: empty (expected: a host name or address)");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
        }
    }

    /**
     * Parses {@code host:port}, {@code [ipv6]:port} or a bare IPv6 literal followed by
     * {@code :port} where the last colon separates the port.
     */
    public static Endpoint parse(String address) {
        Objects.requireNonNull(address, "address");
        String a = address.trim();
        int colon = a.lastIndexOf(':');
        if (colon <= 0 || colon == a.length() - 1) {
            throw new IllegalArgumentException("address: " + address + " (expected: host:port)");
        }
        String host = a.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(a.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address: " + address + " (expected: host:port)", e);
        }
        return new Endpoint(host, port);
    }

    /** {@code host:port}, with IPv6 literals in brackets. */
    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
