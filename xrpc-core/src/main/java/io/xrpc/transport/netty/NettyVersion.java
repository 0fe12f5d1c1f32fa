package io.xrpc.transport.netty;

import io.netty.util.Version;

/**
 * XRpc needs Netty 4.2 (its {@code IoHandler} event loops). A build that manages Netty to 4.1,
 * as Spring Boot 3's dependency management does, otherwise fails deep inside with
 * {@code NoClassDefFoundError: io/netty/channel/epoll/EpollIoHandler}; this says why instead.
 * It touches only {@link Version}, which 4.1 has too, so it runs before any 4.2 class is loaded.
 */
public final class NettyVersion {
    private NettyVersion() {}

    /** Fails naming the Netty found and what to do, unless it is 4.2 or newer (or cannot be told). */
    public static void require() {
        Version common = Version.identify(NettyVersion.class.getClassLoader()).get("netty-common");
        String problem = common == null ? null : problem(common.artifactVersion());
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
    }

    /** What is wrong with Netty {@code version}, or {@code null} when it will do. */
    static String problem(String version) {
        String[] parts = version.split("[.]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            if (major > 4 || major == 4 && minor >= 2) {
                return null;
            }
        } catch (NumberFormatException e) {
            return null; // a build of its own: let it try
        }
        return "XRpc needs Netty 4.2 or newer, but Netty " + version + " is on the classpath. Spring Boot 3"
                + " manages Netty to 4.1: use Spring Boot 4 (the starter is built against 4.1.1), or set the"
                + " netty.version property to 4.2.18.Final";
    }
}
