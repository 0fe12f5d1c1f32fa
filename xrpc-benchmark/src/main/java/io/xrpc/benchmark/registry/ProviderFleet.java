package io.xrpc.benchmark.registry;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.ZookeeperRegistry;
import io.xrpc.registry.zookeeper.ZookeeperSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The provider side of the scale tool, a JVM of its own: instance {@code k} is a
 * {@link ZookeeperRegistry} with its own ZooKeeper session that registers {@code S} services at
 * an address of its own ({@link #endpoint}), as a provider process would. Nothing listens there:
 * only discovery is measured. Commands on standard input, one answer line each on standard output:
 * {@code start N} (instances 0 to N-1, in parallel), {@code join K}, {@code leave K}, {@code quit}.
 *
 * <p>Arguments: connect string, services, mode, session timeout in seconds.
 */
public final class ProviderFleet {
    private ProviderFleet() {}

    /** The application every instance registers under. */
    static final String APPLICATION = "scale";

    /** Instance {@code k}'s address: a distinct host per instance, as a fleet has. */
    static Endpoint endpoint(int k) {
        return new Endpoint("10." + (k >> 16 & 255) + "." + (k >> 8 & 255) + "." + (k & 255), 20880);
    }

    /** Service {@code s} of the simulated fleet. */
    static ServiceKey service(int s) {
        return new ServiceKey("com.example.scale.Service" + s, "1.0", "");
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        int services = Integer.parseInt(args[1]);
        ZookeeperSettings.Mode mode = ZookeeperSettings.Mode.valueOf(args[2].toUpperCase(Locale.ROOT));
        ZookeeperSettings settings = ZookeeperSettings.defaults()
                .withMode(mode, APPLICATION)
                .withSessionTimeout(Duration.ofSeconds(Integer.parseInt(args[3])))
                .withConnectTimeout(Duration.ofMinutes(5));
        Map<Integer, ZookeeperRegistry> live = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] cmd = line.trim().split(" ");
            switch (cmd[0]) {
                case "start" -> {
                    long t = System.nanoTime();
                    List<Future<?>> started = new ArrayList<>();
                    for (int k = 0; k < Integer.parseInt(cmd[1]); k++) {
                        int id = k;
                        started.add(pool.submit(() -> live.put(id, join(settings, connect, id, services))));
                    }
                    for (Future<?> f : started) {
                        f.get();
                    }
                    System.out.println("started " + (System.nanoTime() - t) / 1_000_000);
                }
                case "join" -> {
                    int k = Integer.parseInt(cmd[1]);
                    live.put(k, join(settings, connect, k, services));
                    System.out.println("joined " + k);
                }
                case "leave" -> {
                    ZookeeperRegistry r = live.remove(Integer.parseInt(cmd[1]));
                    if (r != null) {
                        r.close(); // ends the session: ZooKeeper deletes its node at once
                    }
                    System.out.println("left " + cmd[1]);
                }
                case "quit" -> {
                    // No goodbye per session: the ensemble is stopped next, and 2,000 closes take minutes.
                    System.out.println("quit");
                    System.out.flush();
                    Runtime.getRuntime().halt(0);
                }
                default -> System.out.println("unknown " + line);
            }
            System.out.flush();
        }
        // The tool went away: do not stay behind holding a session per instance.
        Runtime.getRuntime().halt(0);
    }

    private static ZookeeperRegistry join(ZookeeperSettings settings, String connect, int k, int services) {
        ZookeeperRegistry r = new ZookeeperRegistry(settings, connect, null);
        List<ServiceInstance> all = new ArrayList<>();
        for (int s = 0; s < services; s++) {
            all.add(new ServiceInstance(
                    service(s), endpoint(k), ServiceInstance.DEFAULT_WEIGHT, List.of("kryo"), Map.of()));
        }
        r.registerAll(all);
        return r;
    }
}
