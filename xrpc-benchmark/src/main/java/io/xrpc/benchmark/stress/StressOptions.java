package io.xrpc.benchmark.stress;

import io.xrpc.benchmark.cli.Access;
import io.xrpc.benchmark.model.Scenarios;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The stress tool's command line: every option, its default and its help, as picocli reads them
 * onto the {@link StressTool} that extends this (and onto each agent it forks, which gets the same
 * options). Package-private fields, so that the tool, its {@link Rig} and its agents read them.
 */
abstract class StressOptions {

    @Option(
            names = "--threads",
            split = ",",
            description = "Caller thread counts, one level each (default: ${DEFAULT-VALUE}).")
    List<Integer> threads = List.of(1, 32, 128, 256);

    @Option(
            names = "--duration",
            converter = DurationConverter.class,
            description = "Measured time per level (default: 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(
            names = "--warmup",
            converter = DurationConverter.class,
            description = "Unmeasured calls before each"
                    + " level, at least this long and then until it is steady (five one-second points without a trend, see"
                    + " --steady), at most --max-warmup (default: 3s).")
    Duration warmup = Duration.ofSeconds(3);

    @Option(
            names = "--forks",
            description =
                    "With --client fork: callers' JVMs per contender, each warmed and"
                            + " measured for --duration (their slices taking turns with the others'), as JMH forks: with two or more"
                            + " a side, --compare takes its noise from the spread between JVMs, which one JVM cannot show (default: 1).")
    int forks = 1;

    @Option(
            names = "--max-warmup",
            converter = DurationConverter.class,
            description = "The longest a level warms up;"
                    + " one not steady by then is measured and marked not steady (default: 30s).")
    Duration maxWarmup = Duration.ofSeconds(30);

    @Option(
            names = "--steady",
            description = "Percent: a level is warm when the calls per second of its last five"
                    + " one-second points show no trend larger than this of their mean, and steady when its measured"
                    + " throughput then moves no more (default: 10).")
    double steadyPercent = 10;

    @Option(
            names = "--calls",
            description = "Stop a level (with --client fork, each of its slices) after this many"
                    + " calls even before its time is up (0: no limit).")
    long maxCalls = 0;

    @Option(
            names = "--serializer",
            split = ",",
            description = "kryo, hessian, protostuff, fory, or several: XRpc is then"
                    + " measured once per serializer, as xrpc-<serializer>; raw Netty carries the first one's frame sizes"
                    + " (default: kryo).")
    List<String> serializers = List.of("kryo");

    /** The serializer of the XRpc run under way (the first of {@link #serializers} for other contenders). */
    String serializer = "kryo";

    @Option(names = "--compressor", description = "none or gzip (default: ${DEFAULT-VALUE}).")
    String compressor = "none";

    @Option(names = "--scenario", split = ",", description = "existUser, createUser, getUser, listUser (default: all).")
    List<String> scenarios = Scenarios.ALL;

    @Option(
            names = "--contender",
            split = ",",
            description = "xrpc, raw-netty, and with the peers profile grpc and dubbo (default: xrpc, raw-netty).")
    List<String> contenders = List.of("xrpc", "raw-netty");

    @Option(
            names = "--provider",
            description = "inproc (same JVM) or fork (a JVM of its own, same flags) (default: ${DEFAULT-VALUE}).")
    String provider = "inproc";

    /** Forked by default: callers in the tool's own JVM would share its heap and GC with the measurement. */
    @Option(
            names = "--client",
            description = "fork (a callers' JVM per contender, same flags, all running"
                    + " at once and measured in turns, see --slice) or inproc (callers in this JVM, each contender after the"
                    + " other) (default: ${DEFAULT-VALUE}).")
    String client = "fork";

    @Option(
            names = "--registry",
            description = "embedded (ZooKeeper in this JVM) or direct (default: ${DEFAULT-VALUE}).")
    String registry = "embedded";

    @Option(
            names = "--rate",
            converter = RateConverter.class,
            description = "Calls per second, such as 5000 or"
                    + " 5000/s, for a fixed-rate run: the --threads callers share the rate, each on a fixed schedule, and"
                    + " each latency counts from when its call was due, so a call that starts late because its caller was"
                    + " still waiting for an answer carries that wait (coordinated omission accounted for, as wrk2 does;"
                    + " give enough --threads that callers are seldom all busy: the report shows how many are); 0 = closed"
                    + " loop (default).")
    double rate = 0;

    /** Reads {@code 5000} or {@code 5000/s}. */
    static final class RateConverter implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String v = value.strip();
            double r = Double.parseDouble(
                    v.endsWith("/s") ? v.substring(0, v.length() - 2).strip() : v);
            if (!(r >= 0) || Double.isInfinite(r)) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "': expected calls per second, such as 5000/s");
            }
            return r;
        }
    }

    @Option(
            names = "--timeout",
            converter = DurationConverter.class,
            description = "Deadline of each call (default: 3s).")
    Duration timeout = Duration.ofSeconds(3);

    @Option(
            names = "--out",
            description = "Directory for results.json, results.md and results.png (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("stress-results");

    @Option(
            names = "--dispatch",
            split = ",",
            description =
                    "Where XRpc's provider runs UserService: pool (its own"
                            + " call threads, the default), tpe (a ThreadPoolExecutor of 200 threads and 1,024 queued calls,"
                            + " the call threads before issue 40), virtual (virtual call threads, JDK 21+) or direct (the event loop, as for methods marked"
                            + " NonBlocking), or several: XRpc is then measured once per choice, as xrpc-<choice> (default: pool).")
    List<String> dispatches = List.of("pool");

    /** Where the XRpc provider under way runs calls (the first of {@link #dispatches} for other contenders). */
    String dispatch = "pool";

    @Option(names = "--quiet", description = "No progress lines.")
    boolean quiet;

    @Option(
            names = "--slice",
            converter = DurationConverter.class,
            description =
                    "With --client fork: each"
                            + " level's --duration is measured in slices of about this length, the contenders taking turns,"
                            + " so that all are measured over the same stretch of time (0: one stretch each, in turn) (default: 2s).")
    Duration slice = Duration.ofSeconds(2);

    @Option(
            names = "--target",
            description =
                    "Measure a running service instead of the built-in model: its"
                            + " provider's host:port or a registry address such as zookeeper://127.0.0.1:2181 (with --call and --args).")
    String target;

    @Option(
            names = "--call",
            description = "With --target: the method to call, SERVICE/METHOD, such as" + " com.acme.Orders/find.")
    String targetCall;

    @Option(
            names = "--args",
            description = "With --target: the arguments of every call, a JSON array such as '[42]'" + " (default: []).")
    String targetArgs;

    @Option(
            names = "--args-file",
            description = "With --target: a file of argument sets, one JSON array a line," + " used round-robin.")
    Path targetArgsFile;

    @Option(
            names = "--types",
            split = ",",
            description = "With --target: the method's parameter types (default:"
                    + " asked of the provider's reflection service).")
    List<String> targetTypes;

    /** With --target: the service's version and group, TLS and token, as the xrpc command line takes them. */
    @CommandLine.Mixin
    Access access = new Access();

    /** Where a callers' JVM finds --token. */
    static final String TOKEN_VARIABLE = "XRPC_STRESS_TOKEN";
    /** Where a forked caller finds the whole --target (a registry address may hold a password): not its command line. */
    static final String TARGET_VARIABLE = "XRPC_STRESS_TARGET";

    @Option(
            names = "--compare",
            description = "A previous run's results.json: the report shows each level before"
                    + " and after, with the change in throughput and in each percentile.")
    Path compare;

    @Option(
            names = "--report-from",
            description = "Run nothing: write the reports (results.md, results.png,"
                    + " report.html) of an earlier run's results.json into --out again, as this version draws them.")
    Path reportFrom;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The resolved --target call; null when the built-in model is measured. */
    TargetCall resolvedTarget;

    @Option(
            names = "--tls-key-store",
            hidden = true,
            description = "Without --target, with --tls: the key store XRpc's provider serves and its callers trust,"
                    + " made once per run by the tool (see BenchTls).")
    Path tlsKeyStore;

    @Option(
            names = "--agent",
            hidden = true,
            description = "Serve one contender's callers to the tool that started" + " this JVM (see Agent).")
    boolean agent;
}
