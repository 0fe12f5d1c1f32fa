package io.xrpc.benchmark.stress;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One contender's callers in a JVM of their own ({@code StressTool --agent}), kept running for the
 * whole run so that the tool can give each contender a slice in turn. The agent starts its
 * provider and its callers, prints {@code READY <serializer> <dispatch>} (what it really uses, which
 * the tool checks), then answers each line
 * {@code run <scenario> <threads> <millis> <0|1>} (1: measured, with what each JVM spent) with
 * {@code SLICE <json>} ({@link Slice#encode}); it stops when its standard input closes. Every wait
 * here is bounded, so a hung agent fails the run instead of stalling it.
 */
final class Agent implements AutoCloseable {
    private static final String READY = "READY";
    private static final String SLICE = "SLICE ";
    /** Put in the answers when the agent's output ends, so that a waiting call fails at once. */
    private static final String GONE = "";

    final String name;
    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Duration timeout;

    private Agent(String name, Process process, Duration timeout, boolean quiet) {
        this.name = name;
        this.process = process;
        this.timeout = timeout;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = in.readLine()) != null; ) {
                            if (line.startsWith(READY) || line.startsWith(SLICE)) {
                                answers.add(line);
                            } else if (!quiet) {
                                System.out.println("  [" + name + "] " + line);
                            }
                        }
                    } catch (IOException e) {
                        // the agent is gone: said below
                    }
                    answers.add(GONE);
                },
                "agent-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code command} and waits (90 s at most) until it has its provider and callers ready,
     * with the serializer and dispatch it was asked for. {@code environment} is added to its own
     * (secrets go there, not on its command line, where {@code ps} shows them).
     */
    static Agent start(
            String name,
            List<String> command,
            Map<String, String> environment,
            String serializer,
            String dispatch,
            Duration timeout,
            boolean quiet)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().putAll(environment);
        Process p = pb.start();
        Agent a = new Agent(name, p, timeout, quiet);
        String first = a.answers.poll(90, TimeUnit.SECONDS);
        String expected = READY + " " + serializer + " " + dispatch;
        if (!expected.equals(first)) {
            a.close();
            throw new IllegalStateException(
                    first == null
                            ? "the agent for " + name + " did not start within 90 s"
                            : first.equals(GONE)
                                    ? a.gone()
                                    : "the agent for " + name + " answered '" + first + "' (expected: '" + expected
                                            + "')");
        }
        return a;
    }

    /** Has the agent's callers run {@code scenario} with {@code threads} callers for {@code length}. */
    Slice slice(String scenario, int threads, Duration length, boolean measured) throws Exception {
        try {
            commands.write(
                    "run " + scenario + " " + threads + " " + length.toMillis() + " " + (measured ? 1 : 0) + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new IllegalStateException(gone(), e);
        }
        // Callers stop within twice the call deadline; the provider's allocation answer within 10 s.
        long bound = length.toMillis() + 2 * timeout.toMillis() + 40_000;
        String line = answers.poll(bound, TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new IllegalStateException("the agent for " + name + " did not answer " + scenario + " at " + threads
                    + " threads within " + bound + " ms");
        }
        if (line.equals(GONE)) {
            throw new IllegalStateException(gone());
        }
        try {
            return Slice.decode(line.substring(SLICE.length()));
        } catch (Exception e) {
            throw new IllegalStateException("the agent for " + name + " sent a slice that does not read: " + e, e);
        }
    }

    /** Why the agent stopped talking: it exited (with its code), or closed its output. */
    private String gone() {
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "the agent for " + name
                + (process.isAlive() ? " closed its output" : " exited with " + process.exitValue())
                + " (its error output is above)";
    }

    @Override
    public void close() throws Exception {
        try {
            commands.close();
        } catch (IOException gone) {
            // already exited
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
