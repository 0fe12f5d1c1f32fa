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
 * A real ZooKeeper server (ZooKeeper's own server classes) inside this JVM, for development: it
 * listens on a free port of 127.0.0.1 and keeps its data in a temporary directory deleted on
 * close. Every {@code embedded} registry in one JVM shares one server, so a provider and a
 * consumer in the same application find each other; the last one to close stops it.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    private static EmbeddedZooKeeper shared;
    private static int users;

    private final Path dir;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;

    private EmbeddedZooKeeper() throws IOException, InterruptedException {
        this.dir = Files.createTempDirectory("xrpc-zookeeper-");
        this.server = new ZooKeeperServer(dir.toFile(), dir.toFile(), 2000);
        this.factory = ServerCnxnFactory.createFactory();
        factory.configure(new InetSocketAddress("127.0.0.1", 0), 1000);
        factory.startup(server);
        log.info("Embedded ZooKeeper listening on {} (data in {})", connectString(), dir);
    }

    /** Starts a server of its own, not shared; {@link #close()} stops it. */
    public static EmbeddedZooKeeper start() {
        try {
            return new EmbeddedZooKeeper();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded ZooKeeper", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded ZooKeeper", e);
        }
    }

    /** The JVM's shared server, started on first use; pair each call with {@link #release()}. */
    public static synchronized EmbeddedZooKeeper acquire() {
        if (shared == null) {
            shared = start();
        }
        users++;
        return shared;
    }

    /** Gives back what {@link #acquire()} lent; the last release stops the shared server. */
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
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.debug("Could not delete {}", dir, e);
        }
    }
}
