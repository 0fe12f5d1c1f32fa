package io.xrpc.registry.zookeeper;

import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.RegistryProvider;
import java.time.Duration;
import java.util.List;

/**
 * {@code embedded[?port=N&...]}: a ZooKeeper inside the first JVM on this machine that asks for
 * one, on a fixed local port that later JVMs connect to, and that one of them serves in turn when
 * that JVM stops ({@link EmbeddedZooKeeper}). The port is {@code port}, else the system property
 * {@value EmbeddedZooKeeper#PORT_PROPERTY}, else {@value EmbeddedZooKeeper#DEFAULT_PORT}; the other
 * parameters are {@link ZookeeperSettings}', with an empty-list grace of 3 s unless given (a
 * takeover empties the registry until each JVM has registered again). For development and demos on
 * one machine; point anything else at a real ZooKeeper.
 *
 * <p>It takes no credentials: its port on 127.0.0.1 is served by whichever local process binds it
 * first, which once the serving JVM stops may be any local user's, and it would receive every
 * remaining JVM's {@code user:password} in clear. An embedded registry is writable by every local
 * user.
 */
public final class EmbeddedRegistryProvider implements RegistryProvider {
    /** The parameter naming the port embedded registries meet on. */
    public static final String PORT = RegistryConfig.EMBEDDED_PORT;

    static final Duration EMPTY_LIST_GRACE = Duration.ofSeconds(3);

    @Override
    public String name() {
        return "embedded";
    }

    @Override
    public Registry create(RegistryConfig config) {
        if (config.username() != null) {
            throw new IllegalArgumentException("registry " + config + ": embedded takes no credentials: its port on"
                    + " 127.0.0.1 is served by whichever local process binds it first (any local user's, once the"
                    + " JVM serving it stops), which would receive user:password in clear; an embedded registry is"
                    + " writable by every local user. Use zookeeper://user:password@host:port for an identity.");
        }
        ZookeeperSettings settings = ZookeeperSettings.of(config, List.of(PORT)); // checked before a server starts
        if (config.parameter(ZookeeperSettings.EMPTY_LIST_GRACE) == null) {
            settings = settings.withEmptyListGrace(EMPTY_LIST_GRACE);
        }
        int port = port(config);
        String connectString = EmbeddedZooKeeper.acquire(port);
        try {
            return new ZookeeperRegistry(
                    settings,
                    connectString,
                    config.username(),
                    config.password(),
                    () -> EmbeddedZooKeeper.release(port));
        } catch (RuntimeException e) {
            EmbeddedZooKeeper.release(port);
            throw e;
        }
    }

    private static int port(RegistryConfig config) {
        String value = config.parameter(PORT);
        if (value == null) {
            return EmbeddedZooKeeper.defaultPort();
        }
        try {
            int port = Integer.parseInt(value.trim());
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException("registry " + config + ": port '" + value + "' (expected: 1-65535)");
    }
}
