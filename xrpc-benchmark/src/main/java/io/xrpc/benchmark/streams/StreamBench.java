package io.xrpc.benchmark.streams;

import io.xrpc.benchmark.streams.StreamBenchService.Tick;
import io.xrpc.benchmark.stress.StressTool;
import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.config.ReferenceOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Streams side by side: each contender's provider in a JVM of its own, its caller in this one, the
 * same messages, in the same run. For each: a server stream of small ticks (messages a second, time
 * to the first, how long each took to arrive), an upload of chunks, a bidirectional echo; the
 * median of the rounds, and ratios against raw Netty and, when it runs, gRPC-java. Then XRpc's
 * provider with a caller that asks for ten ticks of an endless stream and nothing more: both
 * heaps, and how many ticks the provider made, sampled each second.
 *
 * <pre>
 * java -cp benchmarks.jar io.xrpc.benchmark.streams.StreamBench \
 *     --contenders xrpc,raw-netty,grpc --messages 1000000 --rounds 5 --idle-seconds 10 --out target/streams
 * </pre>
 */
public final class StreamBench {
    /** One scenario's figures, medians of the rounds. */
    record Figures(double messagesPerSecond, double firstMicros, double p50Micros, double p99Micros) {}

    private final List<String> contenders;
    private final int messages;
    private final int uploadMessages;
    private final int chunkBytes;
    private final int rounds;
    private final int idleSeconds;
    private final Path out;
    private final String serializer;

    StreamBench(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got " + Arrays.toString(args));
            }
            o.put(args[i].substring(2), args[i + 1]);
        }
        contenders = List.of(o.getOrDefault("contenders", "xrpc,raw-netty").split(","));
        messages = Integer.parseInt(o.getOrDefault("messages", "1000000"));
        uploadMessages = Integer.parseInt(o.getOrDefault("upload-messages", String.valueOf(messages / 4)));
        chunkBytes = Integer.parseInt(o.getOrDefault("chunk-bytes", "1024"));
        rounds = Integer.parseInt(o.getOrDefault("rounds", "5"));
        idleSeconds = Integer.parseInt(o.getOrDefault("idle-seconds", "10"));
        out = Path.of(o.getOrDefault("out", "target/streams"));
        serializer = o.getOrDefault("serializer", "kryo");
        System.setProperty("xrpc.bench.serializer", serializer);
    }

    public static void main(String[] args) throws Exception {
        String report = new StreamBench(args).run();
        System.out.println(report);
    }

    private static final List<String> SCENARIOS = List.of("server-stream", "upload", "echo");

    /**
     * Runs every contender and the idle caller; writes and returns the report (markdown). All
     * providers run at once and the contenders take turns, round by round, so that what disturbs
     * one round of this small machine disturbs every contender's, and the ratios are taken round by
     * round before their median.
     */
    String run() throws Exception {
        // contender -> scenario -> one figure a round
        Map<String, Map<String, List<Figures>>> all = new LinkedHashMap<>();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Map<String, StreamContender.Streamer> streamers = new LinkedHashMap<>();
            for (String c : contenders) {
                Provider p = Provider.fork(c);
                open.add(p);
                StreamContender.Streamer s = StreamContender.named(c).connect(p.port);
                open.add(s);
                streamers.put(c, s);
                Map<String, List<Figures>> m = new LinkedHashMap<>();
                SCENARIOS.forEach(sc -> m.put(sc, new ArrayList<>()));
                all.put(c, m);
            }
            int warmMessages = Math.max(1, Math.min(messages, 200_000));
            int warmUploads = Math.max(1, Math.min(uploadMessages, 50_000));
            for (int i = 0; i < 2; i++) {
                for (StreamContender.Streamer s : streamers.values()) {
                    for (String scenario : SCENARIOS) {
                        measure(s, scenario, warmMessages, warmUploads);
                    }
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (String scenario : SCENARIOS) {
                    for (String c : contenders) {
                        all.get(c).get(scenario).add(measure(streamers.get(c), scenario, messages, uploadMessages));
                    }
                }
            }
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "Streams on %d cores, %s %s; %d ticks a server stream and an echo, %d chunks of %d bytes an"
                        + " upload; %d rounds, the contenders taking turns in each, medians (ratios: the median of"
                        + " each round's); providers in JVMs of their own; XRpc with %s.%n%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"),
                System.getProperty("java.version"),
                messages,
                uploadMessages,
                chunkBytes,
                rounds,
                serializer));
        for (String scenario : SCENARIOS) {
            md.append("| ").append(scenario).append(" | messages/s | vs raw-netty | vs grpc | first message µs |");
            md.append(" p50 µs | p99 µs |\n|---|---:|---:|---:|---:|---:|---:|\n");
            for (String c : contenders) {
                List<Figures> rs = all.get(c).get(scenario);
                Figures f = median(rs);
                boolean upload = scenario.equals("upload");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %,.0f | %s | %s | %s | %s | %s |%n",
                        c,
                        f.messagesPerSecond,
                        ratio(rs, all.get("raw-netty"), scenario),
                        ratio(rs, all.get("grpc"), scenario),
                        upload ? "-" : String.format(Locale.ROOT, "%.0f", f.firstMicros),
                        upload ? "-" : String.format(Locale.ROOT, "%.0f", f.p50Micros),
                        upload ? "-" : String.format(Locale.ROOT, "%.0f", f.p99Micros)));
            }
            md.append('\n');
        }
        if (idleSeconds > 0) {
            md.append(idleCaller());
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.md"), md);
        return md.toString();
    }

    /** The median over the rounds of {@code rs}'s messages a second over the base's of the same round. */
    private static String ratio(List<Figures> rs, Map<String, List<Figures>> base, String scenario) {
        if (base == null) {
            return "-";
        }
        List<Figures> b = base.get(scenario);
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < rs.size(); i++) {
            ratios.add(rs.get(i).messagesPerSecond / b.get(i).messagesPerSecond);
        }
        ratios.sort(Double::compare);
        return String.format(Locale.ROOT, "%.2fx", ratios.get(ratios.size() / 2));
    }

    private Figures measure(StreamContender.Streamer s, String scenario, int count, int uploads) throws Exception {
        return switch (scenario) {
            case "server-stream" -> serverStream(s, count);
            case "echo" -> echo(s, count);
            default -> {
                long start = System.nanoTime();
                long bytes = s.upload(uploads, chunkBytes);
                double seconds = (System.nanoTime() - start) / 1e9;
                if (bytes != (long) uploads * chunkBytes) {
                    throw new IllegalStateException(
                            "the provider counted " + bytes + " bytes of " + (long) uploads * chunkBytes + " uploaded");
                }
                yield new Figures(uploads / seconds, 0, 0, 0);
            }
        };
    }

    private static Figures serverStream(StreamContender.Streamer s, int count) throws Exception {
        Arrivals a = new Arrivals();
        s.serverStream(count, a);
        a.await(600);
        return figures(a, count);
    }

    private static Figures echo(StreamContender.Streamer s, int count) throws Exception {
        Arrivals a = new Arrivals();
        s.echo(count, a);
        a.await(600);
        return figures(a, count);
    }

    private static Figures figures(Arrivals a, int count) {
        if (a.count() != count) {
            throw new IllegalStateException("the stream delivered " + a.count() + " of " + count + " messages");
        }
        return new Figures(count / a.seconds(), a.firstMicros(), a.latencyMicros(50), a.latencyMicros(99));
    }

    private static Figures median(List<Figures> all) {
        List<Figures> sorted = new ArrayList<>(all);
        sorted.sort((x, y) -> Double.compare(x.messagesPerSecond, y.messagesPerSecond));
        return sorted.get(sorted.size() / 2);
    }

    /**
     * XRpc's provider of an endless stream, a caller that took ten ticks and asks for nothing more:
     * each second, the provider's heap after a collection, the ticks it made, and this JVM's heap.
     */
    private String idleCaller() throws Exception {
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "Idle caller: XRpc's provider could make ticks without end; the caller took 10 and asked for"
                        + " nothing more for %d s.%n%n| second | ticks made by the provider | provider heap MiB |"
                        + " caller heap MiB |%n|---:|---:|---:|---:|%n",
                idleSeconds));
        try (Provider p = Provider.fork("xrpc");
                RpcClient client = RpcClient.builder().build()) {
            StreamBenchService service = client.proxy(
                    StreamBenchService.class,
                    ReferenceOptions.builder()
                            .address(new Endpoint("127.0.0.1", p.port))
                            .timeout(Duration.ofSeconds(idleSeconds + 60))
                            .build());
            long[] before = p.heap();
            md.append(String.format(
                    Locale.ROOT,
                    "| before | %d | %.1f | %.1f |%n",
                    before[1],
                    before[0] / 1048576.0,
                    StreamProviderMain.usedAfterGc() / 1048576.0));
            Arrivals a = new Arrivals();
            Flow.Subscription[] sub = new Flow.Subscription[1];
            service.ticks(-1).subscribe(new Flow.Subscriber<Tick>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                    sub[0] = s;
                    s.request(10);
                }

                @Override
                public void onNext(Tick t) {
                    a.arrived(t.sentNanos());
                }

                @Override
                public void onError(Throwable t) {
                    a.ended(t);
                }

                @Override
                public void onComplete() {
                    a.ended(null);
                }
            });
            for (int second = 1; second <= idleSeconds; second++) {
                Thread.sleep(1000); // the tool samples once a second: a measurement, not a test's wait
                long[] h = p.heap();
                md.append(String.format(
                        Locale.ROOT,
                        "| %d | %d | %.1f | %.1f |%n",
                        second,
                        h[1],
                        h[0] / 1048576.0,
                        StreamProviderMain.usedAfterGc() / 1048576.0));
            }
            md.append(String.format(Locale.ROOT, "%nThe caller received %d ticks.%n", a.count()));
            sub[0].cancel();
        }
        return md.toString();
    }

    /** A provider JVM: its port, and its heap on request. */
    private static final class Provider implements AutoCloseable {
        final Process process;
        final int port;
        final Writer input;
        final BlockingQueue<String> heaps = new LinkedBlockingQueue<>();

        private Provider(Process process, int port, Writer input) {
            this.process = process;
            this.port = port;
            this.input = input;
        }

        static Provider fork(String contender) throws Exception {
            List<String> cmd = StressTool.javaCommand(StreamProviderMain.class);
            cmd.add(contender);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("READY ")) {
                    Provider provider = new Provider(
                            p,
                            Integer.parseInt(line.substring(6).trim()),
                            new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII));
                    Thread drain = new Thread(
                            () -> in.lines().forEach(l -> {
                                if (l.startsWith("HEAP ")) {
                                    provider.heaps.add(l.substring(5));
                                }
                            }),
                            "stream-provider-output");
                    drain.setDaemon(true);
                    drain.start();
                    return provider;
                }
                System.err.println(contender + " provider: " + line);
            }
            p.destroyForcibly();
            throw new IllegalStateException("the " + contender + " provider ended before it was ready");
        }

        /** Its heap used after a GC, and the ticks it made. */
        long[] heap() throws Exception {
            input.write("heap\n");
            input.flush();
            String line = heaps.poll(60, TimeUnit.SECONDS);
            if (line == null) {
                throw new IllegalStateException("the provider did not tell its heap within 60 s");
            }
            String[] parts = line.trim().split(" ");
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        }

        @Override
        public void close() throws Exception {
            input.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
