package io.xrpc.benchmark.stress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.stress.StressTool.Call;
import io.xrpc.client.RpcClient;
import io.xrpc.compress.CompressorRegistry;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.WireStrings;
import io.xrpc.protocol.codec.RpcCodec;
import io.xrpc.registry.zookeeper.EmbeddedZooKeeper;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.server.RpcServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One contender's provider and callers, as a run starts them: the provider in this JVM or a JVM of
 * its own ({@code --provider fork}, which then answers questions about its heap on its standard
 * input), raw Netty's or a peer's server, or none for a {@code --target}; and one caller per
 * scenario. Closing it closes what it started, the last first. It also reads the cost counters of
 * the provider's JVM and this one, which a measured slice is bracketed by.
 */
final class Rig implements AutoCloseable {
    private final StressTool o;
    private final String serializer;
    private final String dispatch;
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The forked provider, or -1 when it runs in this JVM (or is a --target's). */
    private long providerPid = -1;
    /** Its standard input, where the tool asks for its allocation; null when it runs in this JVM. */
    private Writer providerInput;
    /** Its answers to those questions. */
    private final BlockingQueue<Long> providerAllocations = new LinkedBlockingQueue<>();
    /** One caller per scenario of the run. */
    final Map<String, Call> calls = new LinkedHashMap<>();

    private Rig(StressTool options, String serializer, String dispatch) {
        this.o = options;
        this.serializer = serializer;
        this.dispatch = dispatch;
    }

    /**
     * Starts {@code contender}'s provider and one caller per scenario of {@code options}, with the
     * given serializer and dispatch; closes what it started if any of it fails.
     */
    static Rig start(StressTool options, String contender, String serializer, String dispatch, EmbeddedZooKeeper zk)
            throws Exception {
        Rig r = new Rig(options, serializer, dispatch);
        try {
            int port = r.startProvider(contender, zk, r.resources);
            for (String scenario : options.scenarios) {
                r.calls.put(scenario, r.caller(contender, scenario, port, zk, r.resources));
            }
            return r;
        } catch (Exception e) {
            r.close();
            throw e;
        }
    }

    /** Whether the provider runs in a JVM of its own, so that each side's costs can be told apart. */
    boolean providerApart() {
        return providerPid >= 0;
    }

    /** The cost counters of the provider's JVM (or -1) and this one, now. */
    Slice.Costs costs() throws Exception {
        return new Slice.Costs(
                ProcessCpu.nanos(providerPid),
                ProcessCpu.nanos(ProcessHandle.current().pid()),
                providerAllocation(),
                HeapAllocation.total());
    }

    @Override
    public void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
    }

    private int startProvider(String contender, EmbeddedZooKeeper zk, List<AutoCloseable> resources) throws Exception {
        if (contender.equals("target")) {
            return -1; // the user's own provider, running already
        }
        if (o.provider.equals("fork")) {
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
        RpcServer.Builder b = ProviderMain.xrpcProvider(dispatch);
        if (zk != null) {
            b.registry("zookeeper://" + zk.connectString());
        }
        if (o.tlsKeyStore != null) {
            b.tls(BenchTls.server(o.tlsKeyStore));
        }
        RpcServer s = b.build().start();
        resources.add(s);
        return s.port();
    }

    private int fork(String contender, EmbeddedZooKeeper zk, List<AutoCloseable> resources) throws Exception {
        List<String> cmd = StressTool.javaCommand(ProviderMain.class);
        cmd.add(contender);
        cmd.add(zk != null && contender.equals("xrpc") ? zk.connectString() : "-");
        cmd.add(dispatch);
        if (o.tlsKeyStore != null && contender.equals("xrpc")) {
            cmd.add(o.tlsKeyStore.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        providerPid = p.pid();
        providerInput = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII);
        providerAllocations.clear();
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
                Thread drain = new Thread(
                        () -> in.lines().forEach(l -> {
                            if (l.startsWith("ALLOC ")) {
                                providerAllocations.add(
                                        Long.parseLong(l.substring(6).trim()));
                            }
                        }),
                        "provider-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(line.substring(6).trim());
            }
        }
        throw new IllegalStateException("forked " + contender + " provider did not start");
    }

    /** Heap bytes the forked provider has allocated so far, or -1 (in this JVM, or no answer). */
    private long providerAllocation() throws IOException, InterruptedException {
        if (providerInput == null) {
            return -1;
        }
        providerInput.write("alloc\n");
        providerInput.flush();
        Long bytes = providerAllocations.poll(10, TimeUnit.SECONDS);
        return bytes == null ? -1 : bytes;
    }

    private Call caller(
            String contender, String scenario, int port, EmbeddedZooKeeper zk, List<AutoCloseable> resources)
            throws Exception {
        if (contender.equals("target")) {
            RpcClient c = o.targetClient();
            resources.add(c);
            return o.resolvedTarget.caller(c);
        }
        Contender peer = peerOrNull(contender);
        if (peer != null) {
            return peer.caller(scenario, port, resources);
        }
        if (contender.equals("raw-netty")) {
            int[] sizes = frameSizes(scenario);
            RawNetty.Client c =
                    new RawNetty.Client(port, Math.min(4, Runtime.getRuntime().availableProcessors()));
            resources.add(c);
            long t = o.timeout.toMillis();
            return () -> c.call(sizes[0], sizes[1], t);
        }
        RpcClient.Builder b = RpcClient.builder()
                .serializer(serializer)
                .compressor(o.compressor)
                .timeout(o.timeout);
        if (zk != null) {
            b.registry("zookeeper://" + zk.connectString());
        }
        if (o.tlsKeyStore != null) {
            b.tls(BenchTls.client(o.tlsKeyStore));
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
        if (contender.equals("xrpc") || contender.equals("raw-netty") || contender.equals("target")) {
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
        Serializer s = SerializerRegistry.load(Scenarios.allowList(), ReadLimits.defaults())
                .get(serializer);
        var comp = CompressorRegistry.load().get(o.compressor);
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
        ByteBuf req = RpcCodec.encodeRequest(
                ByteBufAllocator.DEFAULT,
                1,
                3000,
                RpcCodec.clockMillis(),
                s,
                comp,
                1024,
                Integer.MAX_VALUE,
                WireStrings.shortStringBytes(UserService.class.getName()),
                WireStrings.shortStringBytes(sig),
                null,
                args);
        ByteBuf resp = RpcCodec.encodeResponse(ByteBufAllocator.DEFAULT, 1, s, comp, 1024, Integer.MAX_VALUE, result);
        try {
            // Raw frames add 4 + 8 (+4) bytes of their own; pad to XRpc's whole frame size.
            return new int[] {Math.max(0, req.readableBytes() - 16), Math.max(0, resp.readableBytes() - 12)};
        } finally {
            req.release();
            resp.release();
        }
    }
}
