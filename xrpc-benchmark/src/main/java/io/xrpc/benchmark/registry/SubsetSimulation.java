package io.xrpc.benchmark.registry;

import io.xrpc.common.Endpoint;
import io.xrpc.common.Invocation;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.Subsetting;
import io.xrpc.loadbalance.Aperture;
import io.xrpc.loadbalance.LoadBalancer;
import io.xrpc.loadbalance.LoadBalancerProvider;
import io.xrpc.loadbalance.P2cLoadBalancer;
import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Subsetting simulated at sizes no machine here holds: C consumers, each with XRpc's own
 * {@link Aperture} at its place among them, over N providers. Reports connections per consumer and
 * per provider, each provider's share of the calls (expected from the windows, and sampled through
 * {@code p2c}'s own selection with equal latencies), and how many connections a provider joining
 * or leaving moves. Beside it, the same with every consumer using every provider, and with each
 * taking a random subset of the same size (what subsetting without coordination gives).
 *
 * <pre>
 * java -cp xrpc-benchmark/target/benchmarks.jar io.xrpc.benchmark.registry.SubsetSimulation \
 *     --consumers 1000 --providers 10000,9973,2000
 * </pre>
 */
@Command(
        name = "subset-simulation",
        mixinStandardHelpOptions = true,
        description = "Simulates aperture subsetting of N providers among C consumers.")
public final class SubsetSimulation implements Callable<List<SubsetSimulation.Row>> {

    @Option(names = "--consumers", split = ",", defaultValue = "1000", description = "consumers, one run each")
    List<Integer> consumers;

    @Option(names = "--providers", split = ",", defaultValue = "10000", description = "providers, one run each")
    List<Integer> providers;

    @Option(
            names = "--min",
            defaultValue = "" + Subsetting.DEFAULT_MIN_PROVIDERS,
            description = "fewest providers a window covers")
    int min;

    @Option(names = "--calls", defaultValue = "2000", description = "sampled calls per provider")
    int callsPerProvider;

    @Option(names = "--changes", defaultValue = "10", description = "providers joining, then as many leaving")
    int changes;

    @Option(names = "--seed", defaultValue = "41")
    long seed;

    /** One size's figures; shares are max / mean and min / mean of the providers' calls. */
    public record Row(
            int consumers,
            int providers,
            double connectionsPerConsumer,
            int maxConnectionsPerConsumer,
            double connectionsPerProvider,
            int maxConnectionsPerProvider,
            double expectedMaxOverMean,
            double expectedMinOverMean,
            double sampledMaxOverMean,
            double sampledMinOverMean,
            double sampledNoise,
            double randomSubsetMaxOverMean,
            double movedPerJoin,
            double movedPerLeave) {}

    public static void main(String[] args) {
        System.exit(new CommandLine(new SubsetSimulation()).execute(args));
    }

    /** Runs with {@code args} and returns the rows (for tests). */
    public static List<Row> run(String... args) throws Exception {
        SubsetSimulation s = new SubsetSimulation();
        new CommandLine(s).parseArgs(args);
        return s.call();
    }

    @Override
    public List<Row> call() {
        List<Row> rows = new ArrayList<>();
        for (int c : consumers) {
            for (int n : providers) {
                rows.add(simulate(c, n));
            }
        }
        System.out.println(markdown(rows, min));
        return rows;
    }

    private static final ServiceKey KEY = new ServiceKey("com.acme.Orders", "", "");

    static ServiceInstance provider(int k) {
        return ServiceInstance.of(KEY, ProviderFleet.endpoint(k)); // the scale tool's addresses
    }

    private List<List<ServiceInstance>> windows(List<ServiceInstance> all, int c) {
        List<List<ServiceInstance>> ws = new ArrayList<>(c);
        for (int i = 0; i < c; i++) {
            int index = i;
            PeerPosition place = new PeerPosition(index, c);
            Aperture a = new Aperture(Subsetting.aperture(min, 0), () -> place, () -> {});
            ws.add(a.window(all));
        }
        return ws;
    }

    private Row simulate(int c, int n) {
        Random random = new Random(seed);
        List<ServiceInstance> all = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            all.add(provider(k));
        }
        all = List.copyOf(all);
        Map<Endpoint, Integer> index = new HashMap<>();
        for (int k = 0; k < n; k++) {
            index.put(all.get(k).endpoint(), k);
        }
        List<List<ServiceInstance>> ws = windows(all, c);

        // Connections, and each provider's expected share: every consumer sends the same calls,
        // spread over its window in proportion to the part of each provider the window covers.
        int[] perProvider = new int[n];
        double[] expected = new double[n];
        long connections = 0;
        int maxPerConsumer = 0;
        for (List<ServiceInstance> w : ws) {
            connections += w.size();
            maxPerConsumer = Math.max(maxPerConsumer, w.size());
            for (int k = 0; k < w.size(); k++) {
                int p = index.get(w.get(k).endpoint());
                perProvider[p]++;
                expected[p] += w instanceof Aperture.Window aw ? aw.share(k) : 1.0 / w.size();
            }
        }
        int maxPerProvider = 0;
        for (int v : perProvider) {
            maxPerProvider = Math.max(maxPerProvider, v);
        }

        // Sampled through p2c itself (equal latencies, nothing in flight: its pick is one of its two draws).
        LoadBalancer p2c = new P2cLoadBalancer().create(new LoadBalancerProvider.Context() {
            @Override
            public int activeCalls(Endpoint endpoint) {
                return 0;
            }

            @Override
            public long latencyNanos(Endpoint endpoint) {
                return 0;
            }

            @Override
            public int[] hashArguments() {
                return new int[] {0};
            }
        });
        long calls = (long) callsPerProvider * n;
        long perConsumer = Math.max(1, calls / c);
        long[] sampled = new long[n];
        Invocation inv = null;
        for (List<ServiceInstance> w : ws) {
            for (long k = 0; k < perConsumer; k++) {
                sampled[index.get(p2c.select(w, inv).endpoint())]++;
            }
        }

        // Random subsets of the same size: each consumer its own draw, no coordination.
        int size = (int) Math.round((double) connections / c);
        double[] randomShare = new double[n];
        List<Integer> order = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            order.add(k);
        }
        for (int i = 0; i < c; i++) {
            Collections.shuffle(order, random);
            for (int k = 0; k < size; k++) {
                randomShare[order.get(k)] += 1.0 / size;
            }
        }

        // Joins then leaves: connections opened plus closed over all consumers, per change.
        long movedJoin = 0;
        long movedLeave = 0;
        List<ServiceInstance> now = all;
        List<Set<Endpoint>> before = sets(ws);
        for (int j = 0; j < changes; j++) {
            List<ServiceInstance> next = new ArrayList<>(now);
            next.add(provider(n + j));
            now = List.copyOf(next);
            List<Set<Endpoint>> after = sets(windows(now, c));
            movedJoin += moved(before, after);
            before = after;
        }
        for (int j = 0; j < changes; j++) {
            List<ServiceInstance> next = new ArrayList<>(now);
            next.remove(random.nextInt(next.size()));
            now = List.copyOf(next);
            List<Set<Endpoint>> after = sets(windows(now, c));
            movedLeave += moved(before, after);
            before = after;
        }
        double mean = 1.0 * c / n;
        double sampledMean = (double) perConsumer * c / n;
        return new Row(
                c,
                n,
                (double) connections / c,
                maxPerConsumer,
                (double) connections / n,
                maxPerProvider,
                Arrays.stream(expected).max().orElseThrow() / mean,
                Arrays.stream(expected).min().orElseThrow() / mean,
                Arrays.stream(sampled).max().orElseThrow() / sampledMean,
                Arrays.stream(sampled).min().orElseThrow() / sampledMean,
                1 / Math.sqrt(sampledMean),
                Arrays.stream(randomShare).max().orElseThrow() / mean,
                changes == 0 ? 0 : (double) movedJoin / changes,
                changes == 0 ? 0 : (double) movedLeave / changes);
    }

    private static List<Set<Endpoint>> sets(List<List<ServiceInstance>> ws) {
        List<Set<Endpoint>> s = new ArrayList<>(ws.size());
        for (List<ServiceInstance> w : ws) {
            Set<Endpoint> e = new HashSet<>();
            w.forEach(i -> e.add(i.endpoint()));
            s.add(e);
        }
        return s;
    }

    private static long moved(List<Set<Endpoint>> before, List<Set<Endpoint>> after) {
        long m = 0;
        for (int i = 0; i < before.size(); i++) {
            Set<Endpoint> b = before.get(i);
            Set<Endpoint> a = after.get(i);
            for (Endpoint e : a) {
                if (!b.contains(e)) {
                    m++;
                }
            }
            for (Endpoint e : b) {
                if (!a.contains(e)) {
                    m++;
                }
            }
        }
        return m;
    }

    static String markdown(List<Row> rows, int min) {
        StringBuilder b = new StringBuilder();
        b.append("Aperture of at least ")
                .append(min)
                .append(" providers; shares are max / min over the mean of the providers' calls\n\n");
        b.append("| consumers x providers | connections per consumer (max) | connections per provider (max) |"
                + " expected share max / min | sampled p2c share max / min (noise 1 sigma) |"
                + " random subsets of the same size: max share | connections moved per join / leave |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %,d x %,d | %.1f (%d) | %.1f (%d) | %.3f / %.3f | %.3f / %.3f (%.3f) | %.2f | %.1f / %.1f |%n",
                    r.consumers(),
                    r.providers(),
                    r.connectionsPerConsumer(),
                    r.maxConnectionsPerConsumer(),
                    r.connectionsPerProvider(),
                    r.maxConnectionsPerProvider(),
                    r.expectedMaxOverMean(),
                    r.expectedMinOverMean(),
                    r.sampledMaxOverMean(),
                    r.sampledMinOverMean(),
                    r.sampledNoise(),
                    r.randomSubsetMaxOverMean(),
                    r.movedPerJoin(),
                    r.movedPerLeave()));
        }
        return b.toString();
    }
}
