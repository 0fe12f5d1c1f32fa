package io.xrpc.benchmark.stress;

import io.xrpc.client.RpcClient;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The invoke stress test, done right: every call's latency goes into an HdrHistogram, every error
 * is counted by type (none is swallowed), throughput is successful calls divided by the measured
 * time, and every run stops by itself. Talks to 127.0.0.1 only. This class is the command line and
 * the orchestration (which contender, provider and callers run where, forked or not);
 * {@link LevelRunner} measures a level, {@link StressReport} writes the results.
 *
 * <pre>java -cp benchmarks.jar io.xrpc.benchmark.stress.StressTool --threads 1,32 --duration 10s</pre>
 */
@Command(
        name = "stress",
        mixinStandardHelpOptions = true,
        description = "Concurrent invoke stress test of XRpc beside a raw-Netty baseline.")
public final class StressTool extends StressOptions implements Callable<Integer> {

    private final List<Level> results = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new StressTool()).setExpandAtFiles(false).execute(args));
    }

    /** Runs with the given arguments in this JVM and returns the measured levels. */
    public static List<Level> run(String... args) throws Exception {
        StressTool tool = new StressTool();
        new CommandLine(tool).setExpandAtFiles(false).parseArgs(args);
        tool.call();
        return tool.results;
    }

    /** When the run began, for the report. */
    private final Instant began = Instant.now();

    @Override
    public Integer call() throws Exception {
        if (forks < 1 || forks > 1 && client.equals("inproc")) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--forks " + forks + ": expected 1 or more,"
                            + " and more than 1 only with --client fork (callers in JVMs of their own)");
        }
        serializer = serializers.get(0);
        dispatch = dispatches.get(0);
        if (reportFrom != null) {
            StressReport.rewrite(reportFrom, out, compare);
            return 0;
        }
        if (target != null) {
            aimAtTarget();
        }
        if (target == null && access.tls() && tlsKeyStore == null) {
            tlsKeyStore = BenchTls.createKeyStore(); // XRpc's provider and callers talk TLS
        }
        if (agent) {
            serveAsAgent();
            return 0;
        }
        if (client.equals("fork")) {
            runInterleaved();
        } else {
            runInOrder();
        }
        write();
        long errors = results.stream().mapToLong(Level::errorCount).sum();
        return errors == 0 ? 0 : 1;
    }

    /**
     * {@code --target}: one contender ({@code target}), no provider of the tool's own, one scenario
     * named after the method; its types resolved here once, so that the callers' JVMs need not ask.
     */
    private void aimAtTarget() throws Exception {
        contenders = List.of("target");
        registry = "direct";
        if (agent) {
            access.tokenIfAbsent(System.getenv(TOKEN_VARIABLE));
            String whole = System.getenv(TARGET_VARIABLE);
            if (whole != null) {
                target = whole; // the command line has it masked
            }
        }
        if (targetTypes != null) {
            targetTypes = targetTypes.stream().filter(t -> !t.isBlank()).toList(); // "" is no parameter
        }
        try (RpcClient c = targetClient()) {
            resolvedTarget = TargetCall.resolve(
                    target,
                    targetCall,
                    targetArgs,
                    targetArgsFile,
                    targetTypes,
                    c,
                    timeout,
                    access,
                    spec.commandLine());
        }
        targetTypes = resolvedTarget.types();
        scenarios = List.of(resolvedTarget.method());
    }

    /** A client for the --target: its registry or none, its TLS, its token. */
    RpcClient targetClient() throws Exception {
        return TargetCall.client(target, access, timeout);
    }

    /** One contender to measure, as its results are named: XRpc once per serializer and dispatch asked for. */
    private record Variant(String name, String contender, String serializer, String dispatch) {}

    /** Names XRpc {@code xrpc-<serializer>-<dispatch>}, with only the parts that vary. */
    private List<Variant> variants() {
        List<Variant> all = new ArrayList<>();
        for (String contender : contenders) {
            boolean xrpc = contender.equals("xrpc");
            boolean eachSerializer = xrpc && serializers.size() > 1;
            boolean eachDispatch = xrpc && dispatches.size() > 1;
            for (String s : eachSerializer ? serializers : serializers.subList(0, 1)) {
                for (String d : eachDispatch ? dispatches : dispatches.subList(0, 1)) {
                    String name = contender + (eachSerializer ? "-" + s : "") + (eachDispatch ? "-" + d : "");
                    all.add(new Variant(name, contender, s, d));
                }
            }
        }
        return all;
    }

    /**
     * Every contender's callers in a JVM of their own, all started first; then, for each scenario and
     * thread count, each warmed up in turn and measured in slices taken round-robin (the first
     * contender of each round moving on by one), so that contenders are compared over the same
     * stretch of time on a machine whose speed drifts.
     */
    private void runInterleaved() throws Exception {
        long rounds = slice.isZero() ? 1 : Math.max(1, (duration.toMillis() + slice.toMillis() - 1) / slice.toMillis());
        Duration length = duration.dividedBy(rounds);
        List<Agent> agents = new ArrayList<>();
        Map<Agent, String> variantOf = new LinkedHashMap<>();
        try {
            for (Variant v : variants()) {
                Map<String, String> secrets = new HashMap<>();
                if (access.token() != null) {
                    secrets.put(TOKEN_VARIABLE, access.token());
                }
                if (target != null) {
                    secrets.put(TARGET_VARIABLE, target);
                }
                for (int f = 1; f <= forks; f++) {
                    Agent a = Agent.start(
                            v.name() + (forks > 1 ? " fork " + f : ""),
                            agentCommand(v),
                            secrets,
                            v.serializer(),
                            v.dispatch(),
                            timeout,
                            quiet);
                    agents.add(a);
                    variantOf.put(a, v.name());
                }
            }
            for (String scenario : scenarios) {
                for (int n : threads) {
                    Map<Agent, Slice> warm = new LinkedHashMap<>();
                    for (Agent a : agents) {
                        warm.put(a, a.slice(scenario, n, warmupRule().max(), false)); // the agent's own bound
                    }
                    Map<Agent, List<Slice>> slices = new LinkedHashMap<>();
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < agents.size(); i++) {
                            Agent a = agents.get((i + r) % agents.size());
                            slices.computeIfAbsent(a, k -> new ArrayList<>()).add(a.slice(scenario, n, length, true));
                        }
                    }
                    for (String name : new LinkedHashSet<>(variantOf.values())) {
                        List<Agent> mine = agents.stream()
                                .filter(a -> variantOf.get(a).equals(name))
                                .toList();
                        record(Level.of(
                                name,
                                scenario,
                                n,
                                mine.stream().map(warm::get).toList(),
                                warmupRule(),
                                rate,
                                mine.stream().map(slices::get).toList()));
                    }
                }
            }
        } finally {
            for (Agent a : agents) {
                a.close();
            }
        }
    }

    /** When a level is warm (see {@link Warmup}). */
    Warmup warmupRule() {
        return new Warmup(warmup, maxWarmup, steadyPercent / 100);
    }

    private void record(Level l) {
        results.add(l);
        if (!quiet) {
            System.out.println(l.summary());
        }
    }

    /** {@code java}, this JVM's flags and class path, and {@code main}: a JVM like this one. */
    public static List<String> javaCommand(Class<?> main) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        return cmd;
    }

    /** This tool again as an agent for one contender: same JVM flags, same options. */
    private List<String> agentCommand(Variant v) {
        List<String> cmd = javaCommand(StressTool.class);
        cmd.addAll(List.of(
                "--agent",
                "--contender",
                v.contender(),
                "--provider",
                provider,
                "--registry",
                registry,
                "--serializer",
                v.serializer(),
                "--compressor",
                compressor,
                "--scenario",
                String.join(",", scenarios),
                "--timeout",
                timeout.toMillis() + "ms",
                "--calls",
                Long.toString(maxCalls),
                "--rate",
                Double.toString(rate),
                "--dispatch",
                v.dispatch(),
                "--warmup",
                warmup.toMillis() + "ms",
                "--max-warmup",
                maxWarmup.toMillis() + "ms",
                "--steady",
                Double.toString(steadyPercent)));
        if (target != null) {
            cmd.addAll(List.of(
                    "--target",
                    RegistryConfig.mask(target),
                    "--call",
                    targetCall,
                    "--types=" + String.join(",", targetTypes)));
            if (targetArgsFile != null) {
                cmd.addAll(
                        List.of("--args-file", targetArgsFile.toAbsolutePath().toString()));
            } else if (targetArgs != null) {
                cmd.addAll(List.of("--args", targetArgs));
            }
            cmd.addAll(access.argsWithoutToken());
        }
        if (tlsKeyStore != null) {
            cmd.addAll(List.of("--tls", "--tls-key-store", tlsKeyStore.toString()));
        }
        return cmd;
    }

    /**
     * Agent side of {@link #runInterleaved}: starts the contender's provider and callers, then runs
     * the slices the tool asks for until its standard input closes (see {@link Agent}). Its
     * standard output carries only that exchange: everything else printed here goes to its error.
     */
    private void serveAsAgent() throws Exception {
        PrintStream out = System.out;
        System.setOut(System.err);
        String contender = contenders.get(0);
        EmbeddedZooKeeper zk = registry.equals("embedded") ? EmbeddedZooKeeper.start() : null;
        LevelRunner levels = new LevelRunner(rate, maxCalls, timeout, true);
        try (Rig rig = Rig.start(this, contender, serializer, dispatch, zk)) {
            Map<String, Call> calls = rig.calls;
            out.println("READY " + serializer + " " + dispatch);
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            for (String line; (line = in.readLine()) != null; ) {
                String[] w = line.split(" ");
                Call call = calls.get(w[1]);
                int n = Integer.parseInt(w[2]);
                Duration length = Duration.ofMillis(Long.parseLong(w[3]));
                Slice s = w[4].equals("1")
                        ? measuredSlice(levels, rig, contender, w[1], n, call, length)
                        : levels.warm(contender, w[1], n, call, warmupRule());
                out.println("SLICE " + s.encode());
                out.flush();
            }
        } finally {
            if (zk != null) {
                zk.close();
            }
        }
    }

    /** Each contender after the other, callers in this JVM ({@code --client inproc}). */
    private void runInOrder() throws Exception {
        EmbeddedZooKeeper zk = registry.equals("embedded") ? EmbeddedZooKeeper.start() : null;
        try {
            for (Variant v : variants()) {
                serializer = v.serializer();
                dispatch = v.dispatch();
                LevelRunner levels = new LevelRunner(rate, maxCalls, timeout, quiet);
                try (Rig rig = Rig.start(this, v.contender(), serializer, dispatch, zk)) {
                    for (String scenario : scenarios) {
                        for (int n : threads) {
                            Call call = rig.calls.get(scenario);
                            Slice warm = levels.warm(v.name(), scenario, n, call, warmupRule());
                            Slice s = measuredSlice(levels, rig, v.name(), scenario, n, call, duration);
                            record(Level.of(
                                    v.name(), scenario, n, List.of(warm), warmupRule(), rate, List.of(List.of(s))));
                        }
                    }
                }
            }
        } finally {
            if (zk != null) {
                zk.close();
            }
        }
    }

    /**
     * A measured slice with the cost counters of both JVMs read as it began and ended: this JVM's CPU
     * and heap allocation, and when the provider runs in a JVM of its own, that JVM's (its
     * allocation asked on its input). Unknown when the provider runs here: one JVM then does both.
     */
    private Slice measuredSlice(
            LevelRunner levels, Rig rig, String contender, String scenario, int n, Call call, Duration length)
            throws Exception {
        Slice.Costs before = rig.costs();
        Slice s = levels.measure(contender, scenario, n, call, length, true);
        Slice.Costs after = rig.costs();
        // A provider in this JVM makes this JVM's counters both sides'; a --target's is elsewhere.
        return !rig.providerApart() && target == null ? s : s.withCosts(before, after);
    }

    /** One call of the scenario; throws on any failure. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }

    private void write() throws Exception {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("date", began.truncatedTo(ChronoUnit.SECONDS).toString());
        header.put("duration", Duration.between(began, Instant.now()).toSeconds() + " s in all");
        header.put(
                "run",
                (rate > 0 ? "" : "caller threads ")
                        + threads.stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + (rate > 0 ? " callers" : "") + " for each of "
                        + String.join(", ", scenarios) + "; " + DurationConverter.text(duration) + " measured each"
                        + (client.equals("fork") && !slice.isZero() && contenders.size() > 1
                                ? " in slices of " + DurationConverter.text(slice) + " taken in turns"
                                : ""));
        header.put("warm-up", warmupRule().describe());
        header.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        header.put("cores", Runtime.getRuntime().availableProcessors());
        if (target != null) {
            header.put("target", RegistryConfig.mask(target));
            header.put("call", targetCall + "(" + String.join(",", targetTypes) + ")");
            header.put("serializer", "json (generic invocation)");
        } else {
            header.put("serializer", String.join(",", serializers));
            header.put("dispatch", String.join(",", dispatches));
            header.put("provider", provider);
            header.put("registry", registry);
        }
        header.put("compressor", compressor);
        header.put("client", client);
        header.put(
                "mode",
                rate > 0
                        ? String.format(
                                Locale.ROOT,
                                "open model: calls start at %.0f/s,"
                                        + " latency counted from when each was due (coordinated omission accounted for)",
                                rate)
                        : "closed loop: each caller starts its next call when the last answers");
        StressReport.write(out, header, results, compare);
    }
}
