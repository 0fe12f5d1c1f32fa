package io.xrpc.benchmark.registry;

import io.xrpc.registry.zookeeper.ZookeeperSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** The provider JVM, driven through its standard input; every wait for its answer is bounded. */
final class Fleet implements AutoCloseable {
    private final Process process;
    private final PrintStream in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    /**
     * @param heap          the provider JVM's -Xmx
     * @param services      services each instance registers
     * @param sessionTimeout seconds
     */
    Fleet(String connect, ZookeeperSettings.Mode m, String heap, int services, int sessionTimeout) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap,
                "-Xss256k",
                "-XX:+UseParallelGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp",
                System.getProperty("java.class.path"),
                ProviderFleet.class.getName(),
                connect,
                Integer.toString(services),
                m.name().toLowerCase(Locale.ROOT),
                Integer.toString(sessionTimeout)));
        process = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = out.readLine()) != null; ) {
                            answers.add(line);
                        }
                    } catch (IOException e) {
                        // the process ended
                    }
                },
                "registry-scale-fleet");
        reader.setDaemon(true);
        reader.start();
    }

    /** Sends {@code command} and returns the answer, failing after {@code minutes}. */
    String send(String command, long minutes) throws Exception {
        in.println(command);
        String line = answers.poll(minutes, TimeUnit.MINUTES);
        if (line == null) {
            throw new IllegalStateException("the provider JVM did not answer '" + command + "' within " + minutes
                    + " min" + (process.isAlive() ? "" : " (it ended, exit " + process.exitValue() + ")"));
        }
        return line;
    }

    @Override
    public void close() throws Exception {
        try {
            if (process.isAlive()) {
                send("quit", 1);
            }
        } catch (Exception e) {
            // killed below
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
