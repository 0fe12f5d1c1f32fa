package io.xrpc.benchmark.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.xrpc.registry.zookeeper.ZookeeperRegistry;
import io.xrpc.registry.zookeeper.ZookeeperSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Discovery at scale, measured: a real ZooKeeper ensemble of separate JVMs, P provider instances
 * each with its own session registering S services (in a JVM of their own), and C consumers each
 * with its own session following all S (in this JVM, which does nothing else while measuring).
 * Reports the registry's size ({@code mntr}), how long a consumer takes to subscribe, how long a
 * joining or leaving instance takes to reach every consumer, the consumers' CPU per join, their
 * heap, and what a leader kill does to their lists.
 *
 * <pre>
 * java -cp xrpc-benchmark/target/benchmarks.jar io.xrpc.benchmark.registry.RegistryScaleTool \
 *     --instances 500,2000 --services 20 --consumers 50 --storm
 * </pre>
 */
@Command(
        name = "registry-scale",
        mixinStandardHelpOptions = true,
        description = "Measures ZooKeeper discovery with P instances x S services x C consumers.")
public final class RegistryScaleTool implements Callable<List<RegistryScaleTool.Row>> {

    @Option(names = "--instances", split = ",", defaultValue = "500", description = "provider instances, one run each")
    List<Integer> instances;

    @Option(names = "--services", defaultValue = "20", description = "services per instance")
    int services;

    @Option(names = "--consumers", defaultValue = "50", description = "consumers, each following every service")
    int consumers;

    @Option(names = "--joins", defaultValue = "20", description = "instances joining (then leaving) one at a time")
    int joins;

    @Option(
            names = "--warmup-joins",
            defaultValue = "30",
            description = "instances joining and leaving before measuring (the JIT compiles the paths first)")
    int warmupJoins;

    @Option(names = "--mode", defaultValue = "instance", description = "registry layout: instance, interface or all")
    ZookeeperSettings.Mode mode;

    @Option(names = "--storm", description = "kill the ZooKeeper leader, start it again, and watch the lists")
    boolean storm;

    @Option(
            names = "--storm-watch",
            defaultValue = "60",
            description = "seconds the lists are watched after the leader kill")
    int stormWatch;

    @Option(
            names = "--storm-outage",
            defaultValue = "0",
            description = "with --storm: seconds the ensemble has no quorum (the leader and a follower killed,"
                    + " both started again after it); 0: only the leader, started again after 5 s")
    int stormOutage;

    @Option(names = "--session-timeout", defaultValue = "30", description = "seconds")
    int sessionTimeout;

    @Option(names = "--provider-heap", defaultValue = "6g")
    String providerHeap;

    @Option(names = "--zk-heap", defaultValue = "1g")
    String zkHeap;

    @Option(
            names = "--out",
            defaultValue = "target/registry-scale",
            description = "results.json and results.md go here")
    Path out;

    @Option(names = "--quiet", description = "no progress lines")
    boolean quiet;

    /** One size's figures. Times in milliseconds, CPU in microseconds, heap in bytes. */
    public record Row(
            String mode,
            int instances,
            int services,
            int consumers,
            long znodes,
            long watches,
            long dataBytes,
            long connections,
            double subscribeP50,
            double subscribeP99,
            double joinP50,
            double joinP99,
            double joinMax,
            double leaveP50,
            double leaveP99,
            double leaveMax,
            int joinsUnseen,
            double cpuMicrosPerJoin,
            double cpuMicrosPerLeave,
            long heapPerConsumer,
            Storm storm) {}

    /**
     * A leader kill (or an outage): how long until a leader answered, the smallest list seen, how
     * many times a list fell below the true size, from when every consumer's every list was whole
     * to the end of the watch (0: none fell below; -1: not whole at its end), and from when
     * ZooKeeper itself listed every instance (0: it never lacked one). Times from the kill.
     */
    public record Storm(
            long electionMillis,
            int minListSize,
            int listsBelowTrueSize,
            long wholeAfterMillis,
            long zkWholeAfterMillis) {}

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.exit(new CommandLine(new RegistryScaleTool())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args));
    }

    /** Runs with {@code args} and returns the rows (for tests). */
    public static List<Row> run(String... args) throws Exception {
        RegistryScaleTool t = new RegistryScaleTool();
        new CommandLine(t).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return t.call();
    }

    @Override
    public List<Row> call() throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int p : instances) {
            rows.add(measure(mode, p));
            write(rows);
        }
        System.out.println(ScaleReport.markdown(rows));
        return rows;
    }

    private void progress(String format, Object... args) {
        if (!quiet) {
            System.out.printf("[registry-scale] " + format + "%n", args);
        }
    }

    private Row measure(ZookeeperSettings.Mode m, int p) throws Exception {
        Path dir = Files.createTempDirectory("xrpc-registry-scale");
        List<ScaleConsumer> cs = new ArrayList<>();
        try (Ensemble zk = new Ensemble(dir, 3, List.of("-Xmx" + zkHeap, "-XX:+UseSerialGC"))) {
            zk.awaitQuorum(120_000);
            progress("%s x %d x %d, mode %s: ensemble %s up", p, services, consumers, m, zk.connectString());
            try (Fleet fleet = new Fleet(zk.connectString(), m, providerHeap, services, sessionTimeout)) {
                long started = Long.parseLong(fleet.send("start " + p, 30).split(" ")[1]);
                progress("%d instances registered in %d ms", p, started);
                ZookeeperSettings settings = ZookeeperSettings.defaults()
                        .withMode(m, "consumer")
                        .withSessionTimeout(Duration.ofSeconds(sessionTimeout))
                        .withConnectTimeout(Duration.ofMinutes(5));
                long heapBefore = usedHeapAfterGc();
                double[] subscribe = new double[consumers];
                ExecutorService pool = Executors.newFixedThreadPool(4);
                try {
                    List<Future<ScaleConsumer>> made = new ArrayList<>();
                    for (int c = 0; c < consumers; c++) {
                        int id = c;
                        made.add(pool.submit(() -> {
                            ZookeeperRegistry r = new ZookeeperRegistry(settings, zk.connectString(), null);
                            long t = System.nanoTime();
                            ScaleConsumer consumer = new ScaleConsumer(r, services);
                            subscribe[id] = (System.nanoTime() - t) / 1e6;
                            return consumer;
                        }));
                    }
                    for (Future<ScaleConsumer> f : made) {
                        cs.add(f.get());
                    }
                } finally {
                    pool.shutdown();
                }
                if (propagate(cs, p, () -> {}, new ArrayList<>()) > 0) {
                    throw new IllegalStateException("consumers did not list all " + p + " instances within 60 s");
                }
                long heapPerConsumer = (usedHeapAfterGc() - heapBefore) / consumers;
                Map<String, String> mntr = zk.mntr(zk.leader());
                long watches = 0;
                long connections = 0;
                for (int i = 0; i < zk.size(); i++) { // each server counts its own sessions' watches
                    Map<String, String> own = zk.mntr(i);
                    watches += num(own, "zk_watch_count");
                    connections += num(own, "zk_num_alive_connections");
                }
                progress(
                        "%d consumers subscribed; %s znodes, %d watches",
                        consumers, mntr.get("zk_znode_count"), watches);

                for (int j = 0; j < warmupJoins; j++) {
                    int k = p + joins + j;
                    propagate(cs, p + 1, () -> fleet.send("join " + k, 5), new ArrayList<>());
                    propagate(cs, p, () -> fleet.send("leave " + k, 5), new ArrayList<>());
                }
                long idleCpu = idleCpu(Duration.ofSeconds(2)); // per second of doing nothing
                List<Double> joinMs = new ArrayList<>();
                List<Double> leaveMs = new ArrayList<>();
                // Joins one at a time (each list one longer), then the same instances leave.
                Phase joined = phase(cs, fleet, idleCpu, joinMs, j -> p + j + 1, j -> "join " + (p + j));
                Phase left = phase(cs, fleet, idleCpu, leaveMs, j -> p + joins - 1 - j, j -> "leave " + (p + j));
                progress(
                        "joins p50 %.0f ms, p99 %.0f ms; %.0f us CPU per join per consumer",
                        pct(joinMs, 50), pct(joinMs, 99), joined.cpuMicros());
                Storm s = storm ? storm(zk, cs, p) : null;
                return new Row(
                        m.name().toLowerCase(Locale.ROOT),
                        p,
                        services,
                        consumers,
                        num(mntr, "zk_znode_count"),
                        watches,
                        num(mntr, "zk_approximate_data_size"),
                        connections,
                        pct(subscribe, 50),
                        pct(subscribe, 99),
                        pct(joinMs, 50),
                        pct(joinMs, 99),
                        max(joinMs),
                        pct(leaveMs, 50),
                        pct(leaveMs, 99),
                        max(leaveMs),
                        joined.unseen() + left.unseen(),
                        joined.cpuMicros(),
                        left.cpuMicros(),
                        heapPerConsumer,
                        s);
            }
        } finally {
            cs.parallelStream().forEach(c -> c.registry.close());
            deleteTree(dir);
        }
    }

    /** What a phase of changes cost each consumer (us of CPU per change, net of idle) and how many missed one. */
    private record Phase(double cpuMicros, int unseen) {}

    /**
     * {@link #joins} changes one at a time: change {@code j} is {@code command(j)} to the fleet, then every list must
     * have {@code size(j)} providers. The consumers' CPU over the phase, less what this JVM spends
     * idle in as long, per change and consumer.
     */
    private Phase phase(
            List<ScaleConsumer> cs,
            Fleet fleet,
            long idleCpuPerSecond,
            List<Double> delays,
            IntUnaryOperator size,
            IntFunction<String> command)
            throws Exception {
        int unseen = 0;
        long cpu = 0;
        long wall = 0;
        for (int j = 0; j < joins; j++) {
            int change = j;
            long c0 = cpuNanos();
            long w0 = System.nanoTime();
            unseen += propagate(cs, size.applyAsInt(j), () -> fleet.send(command.apply(change), 5), delays);
            cpu += cpuNanos() - c0;
            wall += System.nanoTime() - w0;
        }
        return new Phase(Math.max(0, cpu - idleCpuPerSecond * (wall / 1e9)) / 1e3 / joins / cs.size(), unseen);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: the system cleans it
        }
    }

    /**
     * Runs {@code action} and waits until every consumer's every list has {@code size} providers;
     * adds each consumer's delay (ms) to {@code delays}; returns how many did not within 60 s.
     */
    private int propagate(List<ScaleConsumer> cs, int size, ThrowingRunnable action, List<Double> delays)
            throws Exception {
        CountDownLatch all = new CountDownLatch(cs.size());
        for (ScaleConsumer c : cs) {
            c.expect(size, all);
        }
        long t0 = System.nanoTime();
        action.run();
        boolean done = all.await(60, TimeUnit.SECONDS);
        int unseen = 0;
        for (ScaleConsumer c : cs) {
            long seen = c.seenAt;
            if (seen == 0) {
                unseen++;
            } else {
                delays.add((seen - t0) / 1e6);
            }
        }
        if (!done) {
            progress("%d consumers did not see %d providers within 60 s", unseen, size);
        }
        return unseen;
    }

    /** Kills the leader, starts it again after 5 s, and watches every list for {@link #stormWatch} seconds. */
    private Storm storm(Ensemble zk, List<ScaleConsumer> cs, int p) throws Exception {
        for (ScaleConsumer c : cs) {
            c.trackMinimum(p);
        }
        int leader = zk.leader();
        int follower = (leader + 1) % zk.size();
        long t0 = System.nanoTime();
        zk.kill(leader);
        if (stormOutage > 0) {
            zk.kill(follower); // no quorum: every session times out unless the outage is short
            Thread.sleep(TimeUnit.SECONDS.toMillis(stormOutage));
            zk.start(leader);
            zk.start(follower);
        }
        long elected = -1;
        while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(120 + stormOutage)) {
            if (zk.leader() >= 0) {
                elected = (System.nanoTime() - t0) / 1_000_000;
                break;
            }
            Thread.sleep(50);
        }
        if (stormOutage == 0) {
            Thread.sleep(Math.max(0, 5_000 - (System.nanoTime() - t0) / 1_000_000));
            zk.start(leader);
        }
        // Whole again: from when every list (or ZooKeeper's count) stayed whole to the watch's end.
        // ZooKeeper is looked at on a thread of its own: a call waits out its retries while the
        // ensemble is away, and the lists must be looked at every 200 ms all the same.
        AtomicLong zkWholeAt = new AtomicLong(-1);
        AtomicBoolean zkLacked = new AtomicBoolean();
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread zkLook = new Thread(() -> {
            try (CuratorFramework look =
                    CuratorFrameworkFactory.newClient(zk.connectString(), 60_000, 15_000, new RetryNTimes(3, 200))) {
                look.start();
                while (watching.get()) {
                    int n = instancesInZooKeeper(look);
                    if (n >= 0 && n < p) {
                        zkLacked.set(true);
                        zkWholeAt.set(-1);
                    } else if (n >= p && zkLacked.get() && zkWholeAt.get() < 0) {
                        zkWholeAt.set((System.nanoTime() - t0) / 1_000_000);
                    }
                    Thread.sleep(200);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        zkLook.setDaemon(true);
        zkLook.start();
        long wholeAt = -1;
        boolean dipped = false;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(stormWatch);
        while (System.nanoTime() < end) {
            boolean whole = true;
            for (ScaleConsumer c : cs) {
                whole &= c.allAt(p);
            }
            dipped |= cs.stream().anyMatch(c -> c.minimum.get() < p);
            if (!whole) {
                wholeAt = -1;
            } else if (wholeAt < 0 && dipped) {
                wholeAt = (System.nanoTime() - t0) / 1_000_000;
            }
            Thread.sleep(200);
        }
        watching.set(false);
        zkLook.join(60_000);
        int min = Integer.MAX_VALUE;
        int below = 0;
        for (ScaleConsumer c : cs) {
            min = Math.min(min, c.minimum.get());
            below += c.below.get();
        }
        zk.awaitQuorum(120_000);
        progress(
                "storm: leader %d killed%s, a leader again after %d ms; smallest list %d of %d; %d lists below;"
                        + " whole after %d ms; ZooKeeper listed every instance again after %d ms",
                leader + 1,
                stormOutage > 0 ? " with follower " + (follower + 1) + " for " + stormOutage + " s" : "",
                elected,
                min,
                p,
                below,
                wholeAt,
                zkWholeAt.get());
        return new Storm(elected, min, below, min < p ? wholeAt : 0, zkLacked.get() ? zkWholeAt.get() : 0);
    }

    /** The instance nodes ZooKeeper lists now under the fleet's application, -1 when it cannot tell. */
    private static int instancesInZooKeeper(CuratorFramework look) {
        try {
            // The layout as docs/REGISTRY.md gives it: the tool uses the registry's API alone.
            return look.getChildren()
                    .forPath("/xrpc/apps/" + ProviderFleet.APPLICATION + "/instances")
                    .size();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The CPU this JVM uses per second while idle (ZooKeeper pings, timers). */
    private static long idleCpu(Duration d) throws InterruptedException {
        long c0 = cpuNanos();
        long w0 = System.nanoTime();
        Thread.sleep(d.toMillis());
        return (long) ((cpuNanos() - c0) * 1e9 / (System.nanoTime() - w0));
    }

    private static long cpuNanos() {
        return ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElse(0L);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long num(Map<String, String> m, String key) {
        try {
            return Long.parseLong(m.getOrDefault(key, "-1"));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static double pct(List<Double> v, double p) {
        return pct(v.stream().mapToDouble(Double::doubleValue).toArray(), p);
    }

    static double pct(double[] v, double p) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100 * s.length) - 1)];
    }

    private static double max(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private void write(List<Row> rows) throws Exception {
        Files.createDirectories(out);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(out.resolve("results.json").toFile(), rows);
        Files.writeString(out.resolve("results.md"), ScaleReport.markdown(rows));
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
