package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.config.ReferenceOptions;

import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.server.RpcServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The invoke stress test, done right: every call's latency goes into an HdrHistogram, every error
 * is counted by type (none is swallowed), throughput is successful calls divided by the measured
 * time, and every run stops by itself. Talks to 127.0.0.1 only.
 *
 * <pre>java -cp benchmarks.jar io.xrpc.benchmark.stress.StressTool --threads 1,32 --duration 10s</pre>
 */
@Command(name = "stress", mixinStandardHelpOptions = true,
        description = "Concurrent invoke stress test of XRpc beside a raw-Netty baseline.")
public final class StressTool implements Callable<Integer> {

    @Option(names = "--threads", split = ",", description = "Caller thread counts, one level each (default: ${DEFAULT-VALUE}).")
    List<Integer> threads = List.of(1, 32, 128, 256);

    @Option(names = "--duration", converter = DurationConverter.class, description = "Measured time per level (default: 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--warmup", converter = DurationConverter.class, description = "Unmeasured calls before each level (default: 3s).")
    Duration warmup = Duration.ofSeconds(3);

    @Option(names = "--calls", description = "Stop a level after this many calls even before --duration (0: no limit).")
    long maxCalls = 0;

    @Option(names = "--serializer", description = "kryo, hessian or protostuff (default: ${DEFAULT-VALUE}).")
    String serializer = "kryo";

    @Option(names = "--compressor", description = "none or gzip (default: ${DEFAULT-VALUE}).")
    String compressor = "none";

    @Option(names = "--scenario", split = ",", description = "existUser, createUser, getUser, listUser (default: all).")
    List<String> scenarios = Scenarios.ALL;

    @Option(names = "--contender", split = ",", description = "xrpc, raw-netty, and with the peers profile grpc (default: xrpc, raw-netty).")
    List<String> contenders = List.of("xrpc", "raw-netty");

    @Option(names = "--provider", description = "inproc (same JVM) or fork (a JVM of its own, same flags) (default: ${DEFAULT-VALUE}).")
    String provider = "inproc";

    @Option(names = "--client", description = "inproc (callers in this JVM) or fork (a client JVM per contender, same flags) (default: ${DEFAULT-VALUE}).")
    String client = "inproc";

    @Option(names = "--registry", description = "embedded (ZooKeeper in this JVM) or direct (default: ${DEFAULT-VALUE}).")
    String registry = "embedded";

    @Option(names = "--rate", description = "Calls per second for a fixed-rate (open-loop) run; 0 = closed loop (default).")
    double rate = 0;

    @Option(names = "--timeout", converter = DurationConverter.class, description = "Deadline of each call (default: 3s).")
    Duration timeout = Duration.ofSeconds(3);

    @Option(names = "--out", description = "Directory for results.json, results.md and results.png (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("stress-results");

    @Option(names = "--quiet", description = "No progress lines.")
    boolean quiet;

    private final List<Level> results = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new StressTool()).execute(args));
    }

    /** Runs with the given arguments in this JVM and returns the measured levels. */
    public static List<Level> run(String... args) throws Exception {
        StressTool tool = new StressTool();
        new CommandLine(tool).parseArgs(args);
        tool.call();
        return tool.results;
    }

    @Override
    public Integer call() throws Exception {
        EmbeddedZooKeeper zk = registry.equals("embedded") ? EmbeddedZooKeeper.start() : null;
        try {
            for (String contender : contenders) {
                if (client.equals("fork")) {
                    runClientJvm(contender);
                } else {
                    runContender(contender, zk);
                }
            }
        } finally {
            if (zk != null) {
                zk.close();
            }
        }
        write();
        long errors = results.stream().mapToLong(Level::errorCount).sum();
        return errors == 0 ? 0 : 1;
    }

    /**
     * Runs one contender's callers in a JVM of their own (this tool again, same flags and
     * options, {@code --client inproc}) and takes its levels from the results it writes.
     */
    private void runClientJvm(String contender) throws Exception {
        Path dir = Files.createTempDirectory("xrpc-stress-" + contender);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(StressTool.class.getName());
        cmd.addAll(List.of("--contender", contender, "--client", "inproc", "--provider", provider,
                "--registry", registry, "--serializer", serializer, "--compressor", compressor,
                "--threads", String.join(",", threads.stream().map(String::valueOf).toList()),
                "--scenario", String.join(",", scenarios), "--duration", duration.toMillis() + "ms",
                "--warmup", warmup.toMillis() + "ms", "--timeout", timeout.toMillis() + "ms",
                "--calls", Long.toString(maxCalls), "--rate", Double.toString(rate), "--out", dir.toString()));
        if (quiet) {
            cmd.add("--quiet");
        }
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        long bound = (duration.toMillis() + warmup.toMillis()) * threads.size() * scenarios.size() + 120_000;
        if (!p.waitFor(bound, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("client JVM for " + contender + " did not finish within " + bound + " ms");
        }
        ObjectMapper json = new ObjectMapper();
        for (var level : json.readTree(dir.resolve("results.json").toFile()).get("levels")) {
            results.add(json.treeToValue(level, Level.class));
        }
    }

    private void runContender(String contender, EmbeddedZooKeeper zk) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            int port = startProvider(contender, zk, resources);
            for (String scenario : scenarios) {
                Call call = caller(contender, scenario, port, zk, resources);
                for (int n : threads) {
                    runLevel(contender, scenario, n, call, warmup, false);
                    results.add(runLevel(contender, scenario, n, call, duration, true));
                }
            }
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    /** One call of the scenario; throws on any failure. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }

    private int startProvider(String contender, EmbeddedZooKeeper zk, List<AutoCloseable> resources) throws Exception {
        if (provider.equals("fork")) {
            return fork(contender, zk, resources);
        }
        Contender peer = peerOrNull(contender);
        if (peer != null) {
            int[] port = new int[1];
            resources.add(peer.startServer(port));
            return port[0];
        }
        if (contender.equals("raw-netty")) {
            RawNetty.Server s = new RawNetty.Server(0, Runtime.getRuntime().availableProcessors());
            resources.add(s);
            return s.port();
        }
        RpcServer.Builder b = RpcServer.builder().host("127.0.0.1").port(0).service(UserService.class, new UserServiceImpl());
        if (zk != null) {
            b.registry("zookeeper://" + zk.connectString());
        }
        RpcServer s = b.build().start();
        resources.add(s);
        return s.port();
    }

    private int fork(String contender, EmbeddedZooKeeper zk, List<AutoCloseable> resources) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ProviderMain.class.getName());
        cmd.add(contender);
        cmd.add(zk != null && contender.equals("xrpc") ? zk.connectString() : "-");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        resources.add(() -> {
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        });
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (String line; (line = in.readLine()) != null && System.nanoTime() < deadline; ) {
            if (line.startsWith("READY ")) {
                Thread drain = new Thread(() -> in.lines().forEach(l -> { }), "provider-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(line.substring(6).trim());
            }
        }
        throw new IllegalStateException("forked " + contender + " provider did not start");
    }

    private Call caller(String contender, String scenario, int port, EmbeddedZooKeeper zk,
                        List<AutoCloseable> resources) throws Exception {
        Contender peer = peerOrNull(contender);
        if (peer != null) {
            return peer.caller(scenario, port, resources);
        }
        if (contender.equals("raw-netty")) {
            int[] sizes = frameSizes(scenario);
            RawNetty.Client c = new RawNetty.Client(port, Math.min(4, Runtime.getRuntime().availableProcessors()));
            resources.add(c);
            long t = timeout.toMillis();
            return () -> c.call(sizes[0], sizes[1], t);
        }
        RpcClient.Builder b = RpcClient.builder().serializer(serializer).compressor(compressor).timeout(timeout);
        if (zk != null) {
            b.registry("zookeeper://" + zk.connectString());
        }
        RpcClient client = b.build();
        resources.add(client);
        ReferenceOptions.Builder o = ReferenceOptions.builder();
        if (zk == null) {
            o.address("127.0.0.1:" + port);
        }
        Runnable call = Scenarios.call(client.proxy(UserService.class, o.build()), scenario);
        return call::run;
    }

    private static Contender peerOrNull(String contender) {
        if (contender.equals("xrpc") || contender.equals("raw-netty")) {
            return null;
        }
        Contender peer = Contender.peer(contender);
        if (peer == null) {
            throw new IllegalArgumentException("contender: " + contender + " (expected: xrpc, raw-netty; grpc needs"
                    + " the jar built with -Ppeers)");
        }
        return peer;
    }

    /** Bytes of XRpc's request and response frames for the scenario, which raw Netty then carries. */
    private int[] frameSizes(String scenario) throws Exception {
        Serializer s = SerializerRegistry.load(Scenarios.allowList(), io.xrpc.serialize.ReadLimits.defaults()).get(serializer);
        var comp = CompressorRegistry.load().get(compressor);
        Object[] args;
        Object result;
        String sig;
        switch (scenario) {
            case "existUser" -> {
                args = new Object[] {"dong.lea@gmail.com"};
                result = true;
                sig = "existUser(java.lang.String)";
            }
            case "createUser" -> {
                args = new Object[] {Payloads.user(1)};
                result = true;
                sig = "createUser(io.xrpc.benchmark.model.User)";
            }
            case "getUser" -> {
                args = new Object[] {1L};
                result = Payloads.user(1);
                sig = "getUser(long)";
            }
            default -> {
                args = new Object[] {1};
                result = Payloads.page(1);
                sig = "listUser(int)";
            }
        }
        ByteBuf req = RpcCodec.encodeRequest(ByteBufAllocator.DEFAULT, 1, 3000, RpcCodec.clockMillis(), s, comp, 1024,
                Integer.MAX_VALUE, RpcCodec.shortStringBytes(UserService.class.getName()), RpcCodec.shortStringBytes(sig), null, args);
        ByteBuf resp = RpcCodec.encodeResponse(ByteBufAllocator.DEFAULT, 1, s, comp, 1024, Integer.MAX_VALUE, result);
        try {
            // Raw frames add 4 + 8 (+4) bytes of their own; pad to XRpc's whole frame size.
            return new int[] {Math.max(0, req.readableBytes() - 16), Math.max(0, resp.readableBytes() - 12)};
        } finally {
            req.release();
            resp.release();
        }
    }

    private Level runLevel(String contender, String scenario, int n, Call call, Duration length, boolean measured)
            throws InterruptedException {
        Recorder recorder = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
        Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong calls = new AtomicLong();
        CountDownLatch done = new CountDownLatch(n);
        long intervalNanos = rate > 0 ? (long) (1e9 * n / rate) : 0;
        long start = System.nanoTime();
        for (int t = 0; t < n; t++) {
            Thread th = new Thread(() -> {
                try {
                    long intended = System.nanoTime();
                    while (!stop.get()) {
                        long begin;
                        if (intervalNanos > 0) {
                            long wait = intended - System.nanoTime();
                            if (wait > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            begin = intended; // latency counts from when the call should have started
                            intended += intervalNanos;
                        } else {
                            begin = System.nanoTime();
                        }
                        try {
                            call.run();
                            recorder.recordValue(Math.min(System.nanoTime() - begin, TimeUnit.SECONDS.toNanos(60)));
                            if (maxCalls > 0 && calls.incrementAndGet() >= maxCalls) {
                                stop.set(true);
                            }
                        } catch (Exception e) {
                            String type = e instanceof RpcException r ? "RpcException " + r.status()
                                    : e.getClass().getSimpleName();
                            errors.computeIfAbsent(type, k -> {
                                System.err.println("first " + type + " in " + contender + " " + scenario + ": " + e);
                                return new LongAdder();
                            }).increment();
                        }
                    }
                } finally {
                    done.countDown();
                }
            }, "caller-" + t);
            th.setDaemon(true);
            th.start();
        }
        long end = start + length.toNanos();
        Histogram total = null;
        while (System.nanoTime() < end && !stop.get()) {
            Thread.sleep(Math.min(1000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            Histogram interval = recorder.getIntervalHistogram();
            total = total == null ? interval.copy() : add(total, interval);
            if (measured && !quiet) {
                System.out.printf("  %-9s %-10s %4d threads  %8.0f calls/s  p99 %8.1f us  errors %d%n", contender,
                        scenario, n, interval.getTotalCount() * 1e9 / Math.max(1, interval.getEndTimeStamp() * 1e6
                                - interval.getStartTimeStamp() * 1e6),
                        interval.getValueAtPercentile(99) / 1e3, errors.values().stream().mapToLong(LongAdder::sum).sum());
            }
        }
        stop.set(true);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!done.await(timeout.toMillis() * 2 + 10_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("callers did not stop within their deadline: a call hangs");
        }
        total = total == null ? recorder.getIntervalHistogram() : add(total, recorder.getIntervalHistogram());
        Map<String, Long> errorCounts = new LinkedHashMap<>();
        errors.forEach((k, v) -> errorCounts.put(k, v.sum()));
        long errorCount = errorCounts.values().stream().mapToLong(Long::longValue).sum();
        Level level = new Level(contender, scenario, n, total.getTotalCount(), errorCount, errorCounts, seconds,
                total.getTotalCount() / seconds, total.getValueAtPercentile(50) / 1e3,
                total.getValueAtPercentile(90) / 1e3, total.getValueAtPercentile(99) / 1e3,
                total.getValueAtPercentile(99.9) / 1e3, total.getMaxValue() / 1e3);
        if (measured) {
            System.out.printf("%s %s %d threads: %.0f calls/s, p50 %.1f us, p99 %.1f us, max %.1f us, %d errors %s%n",
                    contender, scenario, n, level.throughput(), level.p50Micros(), level.p99Micros(), level.maxMicros(),
                    errorCount, errorCounts);
        }
        return level;
    }

    private static Histogram add(Histogram total, Histogram interval) {
        total.add(interval);
        return total;
    }

    private void write() throws Exception {
        Files.createDirectories(out);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        doc.put("cores", Runtime.getRuntime().availableProcessors());
        doc.put("serializer", serializer);
        doc.put("compressor", compressor);
        doc.put("provider", provider);
        doc.put("client", client);
        doc.put("registry", registry);
        doc.put("mode", rate > 0 ? "fixed rate " + rate + "/s (coordinated omission corrected)" : "closed loop");
        doc.put("levels", results);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), doc);
        Files.writeString(out.resolve("results.md"), markdown(), StandardCharsets.UTF_8);
        chart();
        System.out.println("results: " + out.toAbsolutePath().resolve("results.{json,md,png}"));
    }

    /** The table, with each level's throughput and p50 as a ratio to raw Netty's in the same run. */
    String markdown() {
        StringBuilder sb = new StringBuilder("| contender | scenario | threads | calls/s | vs raw | p50 us | vs raw | p90 us"
                + " | p99 us | p99.9 us | max us | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Level l : results) {
            Level base = results.stream().filter(b -> b.contender().equals("raw-netty")
                    && b.scenario().equals(l.scenario()) && b.threads() == l.threads()).findFirst().orElse(null);
            sb.append(String.format("| %s | %s | %d | %.0f | %s | %.1f | %s | %.1f | %.1f | %.1f | %.1f | %d |%n",
                    l.contender(), l.scenario(), l.threads(), l.throughput(),
                    base == null ? "-" : String.format("%.2fx", l.throughput() / base.throughput()), l.p50Micros(),
                    base == null ? "-" : String.format("%.2fx", l.p50Micros() / base.p50Micros()), l.p90Micros(),
                    l.p99Micros(), l.p999Micros(), l.maxMicros(), l.errorCount()));
        }
        return sb.toString();
    }

    private void chart() throws Exception {
        XYChart throughput = new XYChartBuilder().width(900).height(500).title("Throughput")
                .xAxisTitle("caller threads").yAxisTitle("calls/s").build();
        XYChart p99 = new XYChartBuilder().width(900).height(500).title("p99 latency")
                .xAxisTitle("caller threads").yAxisTitle("microseconds").build();
        Map<String, List<Level>> series = new LinkedHashMap<>();
        for (Level l : results) {
            series.computeIfAbsent(l.contender() + " " + l.scenario(), k -> new ArrayList<>()).add(l);
        }
        for (Map.Entry<String, List<Level>> e : series.entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(Level::threads).toArray();
            throughput.addSeries(e.getKey(), x, e.getValue().stream().mapToDouble(Level::throughput).toArray());
            p99.addSeries(e.getKey(), x, e.getValue().stream().mapToDouble(Level::p99Micros).toArray());
        }
        if (!series.isEmpty()) {
            BitmapEncoder.saveBitmap(List.of(throughput, p99), 2, 1, out.resolve("results").toString(),
                    BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /** Reads {@code 10s}, {@code 500ms}, {@code 2m} or an ISO-8601 duration. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String v) {
            String s = v.trim().toLowerCase();
            if (s.startsWith("pt")) {
                return Duration.parse(v);
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("s")) {
                return Duration.ofMillis((long) (Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            }
            if (s.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
            }
            throw new CommandLine.TypeConversionException("'" + v + "' (expected: 10s, 500ms, 2m or PT10S)");
        }
    }

}
