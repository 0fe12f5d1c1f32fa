package io.xrpc.registry.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper server (ZooKeeper's own server classes) inside this JVM, for development, with
 * its data in a temporary directory deleted on close.
 *
 * <p>{@code embedded} registries meet on one port of 127.0.0.1, {@value #DEFAULT_PORT} (or
 * {@code embedded?port=N}, {@code xrpc.registry.embedded-port}, or the system property
 * {@value #PORT_PROPERTY}), so that a provider and a consumer find each other whether they run in
 * one JVM or in several on the same machine: the first JVM to need it binds the port and serves,
 * every later one finds the port taken and connects to it (two starting at once settle the same
 * way: one binds, the other connects). Inside a JVM, every embedded registry on a port shares the
 * one server and the last to close stops it.
 *
 * <p>When the serving JVM stops, another takes over: every JVM that uses the port without serving
 * it tries once a second to bind it, and the first to succeed serves a new, empty ZooKeeper there.
 * Every registry's client then finds its session unknown, starts a new one, registers its providers
 * again and reads its subscriptions anew (the new server starts its transaction ids above the old
 * one's, so that clients are not refused for having seen a later state). Calls between the
 * remaining JVMs go on over their open connections; for the few seconds that takes, a provider
 * that starts or stops is not seen. Any local process that binds the port first
 * is taken for the registry, and unrelated projects on one machine share it: this is for a
 * laptop, not for anything else.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    /** The port embedded registries meet on unless told otherwise. */
    public static final int DEFAULT_PORT = 21810;
    /** A system property naming another port for embedded registries to meet on. */
    public static final String PORT_PROPERTY = "xrpc.embedded.port";
    /** How often a JVM that uses the port without serving it checks whether the port came free. */
    static final long TAKEOVER_CHECK_MILLIS = 1000;

    /** Per port in use in this JVM: how many registries use it, and the server if this JVM serves it. */
    private static final Map<Integer, Slot> slots = new HashMap<>();

    private static ScheduledExecutorService takeover;

    private static final class Slot {
        int users;
        EmbeddedZooKeeper server;
        ScheduledFuture<?> check;
    }

    private final Path dir;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;

    private EmbeddedZooKeeper(int port) throws IOException, InterruptedException {
        // Bind first: a port that is taken costs no data directory and no server's start-up.
        this.factory = ServerCnxnFactory.createFactory();
        try {
            factory.configure(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            factory.shutdown(); // configure leaves its channel open when the bind fails
            throw e;
        }
        this.dir = Files.createTempDirectory("xrpc-zookeeper-");
        this.server = new ZooKeeperServer(dir.toFile(), dir.toFile(), 2000);
        try {
            factory.startup(server);
            // Transaction ids above any an earlier server on this port gave (its epoch is a
            // second count too, and lower): a client that saw that server's state is then not
            // refused by this one as "ahead" of it, but told at once that its session is gone.
            long zxid = (System.currentTimeMillis() / 1000) << 32;
            server.getZKDatabase().setlastProcessedZxid(zxid);
            server.setZxid(zxid);
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

    /** The port embedded registries meet on when none is given: {@value #PORT_PROPERTY}, else {@value #DEFAULT_PORT}. */
    public static int defaultPort() {
        return Integer.getInteger(PORT_PROPERTY, DEFAULT_PORT);
    }

    /** {@link #acquire(int)} on {@link #defaultPort()}. */
    public static String acquire() {
        return acquire(defaultPort());
    }

    /**
     * The connect string of the machine's shared embedded ZooKeeper on {@code port}: served by
     * this JVM when the port was free, else by the JVM that holds it, which this JVM replaces
     * should it stop. Pair each call with {@link #release(int)}.
     */
    public static synchronized String acquire(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("embedded ZooKeeper port: " + port + " (expected: 1-65535)");
        }
        Slot slot = slots.computeIfAbsent(port, p -> new Slot());
        if (slot.users == 0) {
            try {
                slot.server = new EmbeddedZooKeeper(port);
            } catch (BindException e) {
                log.info(
                        "Embedded ZooKeeper: 127.0.0.1:{} is taken, presumably by another JVM's embedded"
                                + " ZooKeeper on this machine; connecting to it, and serving it should that JVM stop",
                        port);
                watchForTakeover(port, slot);
            } catch (IOException e) {
                slots.remove(port);
                throw new UncheckedIOException("cannot start the embedded ZooKeeper on 127.0.0.1:" + port, e);
            } catch (InterruptedException e) {
                slots.remove(port);
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the embedded ZooKeeper", e);
            }
        }
        slot.users++;
        return "127.0.0.1:" + port;
    }

    private static void watchForTakeover(int port, Slot slot) {
        if (takeover == null) {
            takeover = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "xrpc-embedded-zookeeper-takeover");
                t.setDaemon(true);
                return t;
            });
        }
        slot.check = takeover.scheduleWithFixedDelay(
                () -> takeOverIfFree(port, slot), TAKEOVER_CHECK_MILLIS, TAKEOVER_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Serves the port if its server went away; quiet while it is taken. */
    private static synchronized void takeOverIfFree(int port, Slot slot) {
        try {
            tryTakeOver(port, slot);
        } catch (Throwable t) {
            // A scheduled task that throws is never run again: keep watching.
            log.warn("Embedded ZooKeeper: checking whether 127.0.0.1:{} came free failed; trying again", port, t);
        }
    }

    private static void tryTakeOver(int port, Slot slot) {
        if (slot.users == 0 || slot.server != null || slots.get(port) != slot || !isFree(port)) {
            return;
        }
        try {
            slot.server = new EmbeddedZooKeeper(port);
        } catch (BindException e) {
            return; // another JVM took it first
        } catch (IOException | RuntimeException e) {
            log.warn("Embedded ZooKeeper: 127.0.0.1:{} came free but could not be served here; trying again", port, e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        slot.check.cancel(false);
        slot.check = null;
        log.warn(
                "Embedded ZooKeeper: the JVM that served 127.0.0.1:{} stopped; this JVM serves it now, and every"
                        + " JVM registers and subscribes again",
                port);
    }

    /** Whether nothing listens on the port now (a bind as the server's, which allows TIME_WAIT leftovers). */
    private static boolean isFree(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Gives back what {@link #acquire()} lent. */
    public static void release() {
        release(defaultPort());
    }

    /** Gives back what {@link #acquire(int)} lent; the last release stops the server this JVM serves. */
    public static synchronized void release(int port) {
        Slot slot = slots.get(port);
        if (slot == null || slot.users == 0 || --slot.users > 0) {
            return;
        }
        slots.remove(port);
        if (slot.check != null) {
            slot.check.cancel(false);
        }
        if (slot.server != null) {
            slot.server.close();
        }
    }

    /** Whether this JVM serves the embedded ZooKeeper on {@code port} now. */
    public static synchronized boolean serves(int port) {
        Slot slot = slots.get(port);
        return slot != null && slot.server != null;
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
