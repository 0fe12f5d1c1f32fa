package io.xrpc.internal;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/** Picks the address a provider advertises when it listens on every interface. */
public final class LocalAddress {
    private LocalAddress() {}

    public static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0") || host.equals("*");
    }

    /**
     * The first IPv4 address of an interface that is up, not loopback and not virtual, preferring
     * private (site-local) ones; else any such IPv6 address; else {@code 127.0.0.1}.
     */
    public static String pick() {
        String ipv6 = null;
        String publicV4 = null;
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback() || nic.isVirtual() || nic.isPointToPoint()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress()) {
                        continue;
                    }
                    if (a instanceof Inet4Address) {
                        if (a.isSiteLocalAddress()) {
                            return a.getHostAddress();
                        }
                        publicV4 = publicV4 == null ? a.getHostAddress() : publicV4;
                    } else if (ipv6 == null) {
                        String h = a.getHostAddress();
                        int zone = h.indexOf('%');
                        ipv6 = zone >= 0 ? h.substring(0, zone) : h;
                    }
                }
            }
        } catch (SocketException e) {
            return "127.0.0.1";
        }
        return publicV4 != null ? publicV4 : ipv6 != null ? ipv6 : "127.0.0.1";
    }
}
