package io.xrpc.testing;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A main class of the test classpath in a JVM of its own, for tests that must freeze or kill a
 * process: it prints {@code READY <port>} when it serves. {@link #freeze()} and {@link #thaw()}
 * send SIGSTOP and SIGCONT (Linux and other Unixes), as an operator's frozen provider would get.
 */
public final class ForkedJvm implements AutoCloseable {
    private final Process process;
    private final int port;

    public ForkedJvm(Class<?> main, String... args) throws IOException {
        process = new ProcessBuilder(command(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), main, args))
                .redirectErrorStream(true)
                .start();
        AtomicReference<String> ready = new AtomicReference<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = out.readLine()) != null; ) {
                            if (line.startsWith("READY ")) {
                                ready.set(line);
                            }
                        }
                    } catch (IOException ignored) {
                        // the child ended
                    }
                },
                "forked-jvm-output");
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> ready.get() != null || !process.isAlive());
            if (ready.get() == null) {
                throw new IllegalStateException(
                        main.getName() + " ended before it was ready: exit " + process.exitValue());
            }
            port = Integer.parseInt(ready.get().substring(6).trim());
        } catch (RuntimeException e) {
            process.destroyForcibly(); // never leave a child behind
            throw e;
        }
    }

    /** The command that runs {@code main} of the test classpath with {@code jvmOptions} in a JVM of its own. */
    public static List<String> command(List<String> jvmOptions, Class<?> main, String... args) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path")));
        command.addAll(jvmOptions);
        command.add(main.getName());
        command.addAll(List.of(args));
        return command;
    }

    /**
     * For the child's main, once it serves: returns never, and ends the child when its standard
     * input ends, which is when the JVM that started it is gone, so no child outlives a test run.
     */
    public static void serveUntilParentExits() throws IOException {
        while (System.in.read() >= 0) {
            // nothing is sent
        }
        Runtime.getRuntime().halt(0);
    }

    public int port() {
        return port;
    }

    public void freeze() throws Exception {
        signal("-STOP");
    }

    public void thaw() throws Exception {
        signal("-CONT");
    }

    private void signal(String which) throws Exception {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + which + " " + process.pid() + " failed");
        }
    }

    /** Kills the child at once (SIGKILL), as a crash or an operator's {@code kill -9} would. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        try {
            if (process.isAlive()) {
                thaw();
            }
        } finally {
            kill();
        }
    }
}
