package io.xrpc.benchmark.registry;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

/**
 * A real ZooKeeper ensemble of separate JVMs on 127.0.0.1 (QuorumPeerMain, the class ZooKeeper's
 * own zkServer.sh runs), each with its own data directory, which can be killed and started again.
 * Four-letter words answer {@code srvr} and {@code mntr}.
 */
final class Ensemble implements AutoCloseable {
    private final Path dir;
    private final int[] clientPorts;
    private final Process[] servers;
    private final List<String> jvmFlags;

    Ensemble(Path dir, int size, List<String> jvmFlags) throws IOException {
        this.dir = dir;
        this.jvmFlags = jvmFlags;
        this.clientPorts = new int[size];
        this.servers = new Process[size];
        int[] quorum = new int[size];
        int[] election = new int[size];
        for (int i = 0; i < size; i++) {
            clientPorts[i] = freePort();
            quorum[i] = freePort();
            election[i] = freePort();
        }
        for (int i = 0; i < size; i++) {
            Path data = dir.resolve("zk" + (i + 1));
            Files.createDirectories(data);
            Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
            StringBuilder cfg = new StringBuilder()
                    .append("tickTime=2000\ninitLimit=10\nsyncLimit=5\n")
                    .append("dataDir=")
                    .append(data.toAbsolutePath())
                    .append('\n')
                    .append("clientPort=")
                    .append(clientPorts[i])
                    .append('\n')
                    .append("clientPortAddress=127.0.0.1\n")
                    .append("maxClientCnxns=0\n")
                    .append("4lw.commands.whitelist=srvr,mntr\n")
                    .append("admin.enableServer=false\n")
                    // A laptop's disk: the figures are of the protocol's work, not of fsync.
                    .append("forceSync=no\n");
            for (int j = 0; j < size; j++) {
                cfg.append("server.")
                        .append(j + 1)
                        .append("=127.0.0.1:")
                        .append(quorum[j])
                        .append(':')
                        .append(election[j])
                        .append('\n');
            }
            Files.writeString(data.resolve("zoo.cfg"), cfg);
        }
        for (int i = 0; i < size; i++) {
            start(i);
        }
    }

    /** Starts server {@code i} (again). */
    void start(int i) throws IOException {
        Path data = dir.resolve("zk" + (i + 1));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        cmd.add("-Dzookeeper.jmx.log4j.disable=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("org.apache.zookeeper.server.quorum.QuorumPeerMain");
        cmd.add(data.resolve("zoo.cfg").toString());
        servers[i] = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        data.resolve("server.log").toFile()))
                .start();
    }

    /** Kills server {@code i} at once, as a power cut would. */
    void kill(int i) throws InterruptedException {
        servers[i].destroyForcibly();
        servers[i].waitFor();
    }

    /** Waits until every server answers and one is the leader. */
    void awaitQuorum(long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < end) {
            if (leader() >= 0 && allServing()) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the ensemble did not form within " + timeoutMillis + " ms (see " + dir + ")");
    }

    private boolean allServing() {
        for (int i = 0; i < clientPorts.length; i++) {
            String s = fourLetter(i, "srvr");
            if (!s.contains("Mode: leader") && !s.contains("Mode: follower")) {
                return false;
            }
        }
        return true;
    }

    /** The index of the leader, or -1 when none answers as one. */
    int leader() {
        for (int i = 0; i < clientPorts.length; i++) {
            if (fourLetter(i, "srvr").contains("Mode: leader")) {
                return i;
            }
        }
        return -1;
    }

    String connectString() {
        StringBuilder sb = new StringBuilder();
        for (int p : clientPorts) {
            sb.append(sb.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
        }
        return sb.toString();
    }

    /** The server's {@code mntr} figures (name to value), empty when it does not answer. */
    Map<String, String> mntr(int i) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : fourLetter(i, "mntr").split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                m.put(line.substring(0, tab), line.substring(tab + 1).trim());
            }
        }
        return m;
    }

    /** A four-letter word's answer; empty when the server does not answer. */
    private String fourLetter(int i, String word) {
        try {
            return FourLetterWordMain.send4LetterWord("127.0.0.1", clientPorts[i], word, false, 3000);
        } catch (IOException | X509Exception.SSLContextException e) {
            return "";
        }
    }

    int size() {
        return clientPorts.length;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (Process p : servers) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (Process p : servers) {
            try {
                if (p != null) {
                    p.waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
