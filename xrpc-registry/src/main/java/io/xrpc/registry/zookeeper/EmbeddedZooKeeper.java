package io.xrpc.registry.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper server (ZooKeeper's own server classes) inside this JVM, for development, with
 * its data in a temporary directory deleted on close.
 *
 * <p>{@code embedded} registries meet on one port of 127.0.0.1, {@value #DEFAULT_PORT} (or the
 * system property {@value #PORT_PROPERTY}), so that a provider and a consumer find each other
 * whether they run in one JVM or in several on the same machine: the first JVM to need it binds
 * the port and serves, every later one finds the port taken and connects to it (two starting at
 * once settle the same way: one binds, the other connects). Inside a JVM, every embedded registry
 * shares the one server and the last to close stops it. When the serving JVM stops, the others
 * lose their registry until it runs again. Any local process that binds the port first is taken
 * for the registry, and unrelated projects on one machine share it: this is for a laptop, not for
 * anything else.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    /** The port embedded registries meet on unless {@value #PORT_PROPERTY} says otherwise. */
    public static final int DEFAULT_PORT = 21810;
    /** A system property naming another port for embedded registries to meet on. */
    public static final String PORT_PROPERTY = "xrpc.embedded.port";

    private static EmbeddedZooKeeper shared;
    /** The port this JVM's embedded registries use, set while any is open. */
    private static int sharedPort;
    private static int users;

    private final Path dir;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;

    private EmbeddedZooKeeper(int port) throws IOException, InterruptedException {
        this.dir = Files.createTempDirectory("xrpc-zookeeper-");
        this.server = new ZooKeeperServer(dir.toFile(), dir.toFile(), 2000);
        this.factory = ServerCnxnFactory.createFactory();
        try {
            factory.configure(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            server.shutdown();
            server.getTxnLogFactory().close();
            deleteData();
            throw e;
        }
        try {
            factory.startup(server);
        } catch (IOException | InterruptedException | RuntimeException e) {
            factory.shutdown(); // do not leave the port bound to a server that never ran
            server.shutdown();
            server.getTxnLogFactory().close();
            deleteData();
            throw e;
        }
        log.info("Embedded ZooKeeper listening on {} (data in {})", connectString(), dir);
    }

    /** Starts a server of its own on a free port, not shared; {@link #close()} stops it. */
    public static EmbeddedZooKeeper start() {
        return start(0);
    }

    /** Starts a server of its own on {@code port} of 127.0.0.1 (0: any free one). */
    static EmbeddedZooKeeper start(int port) {
        try {
            return new EmbeddedZooKeeper(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded ZooKeeper", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded ZooKeeper", e);
        }
    }

    /**
     * The connect string of the machine's shared embedded ZooKeeper: served by this JVM when the
     * port was free, else by the JVM that holds it. Pair each call with {@link #release()}.
     */
    public static synchronized String acquire() {
        if (users == 0) {
            sharedPort = Integer.getInteger(PORT_PROPERTY, DEFAULT_PORT);
            try {
                shared = new EmbeddedZooKeeper(sharedPort);
            } catch (java.net.BindException e) {
                log.info("Embedded ZooKeeper: 127.0.0.1:{} is taken, presumably by another JVM's embedded"
                        + " ZooKeeper on this machine; connecting to it", sharedPort);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded ZooKeeper on 127.0.0.1:" + sharedPort, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the embedded ZooKeeper", e);
            }
        }
        users++;
        return "127.0.0.1:" + sharedPort;
    }

    /** Gives back what {@link #acquire()} lent; the last release stops the server this JVM serves. */
    public static synchronized void release() {
        if (users > 0 && --users == 0 && shared != null) {
            shared.close();
            shared = null;
        }
    }

    public int port() {
        return factory.getLocalPort();
    }

    public String connectString() {
        return "127.0.0.1:" + port();
    }

    @Override
    public void close() {
        factory.shutdown();
        server.shutdown();
        try {
            server.getTxnLogFactory().close();
        } catch (IOException e) {
            log.debug("Could not close the transaction log", e);
        }
        deleteData();
    }

    private void deleteData() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.debug("Could not delete {}", dir, e);
        }
    }
}
