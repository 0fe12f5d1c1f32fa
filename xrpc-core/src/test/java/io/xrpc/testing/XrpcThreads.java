package io.xrpc.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;

/** Checks that what a test started and stopped left no XRpc thread that keeps a JVM alive. */
public final class XrpcThreads {
    private XrpcThreads() {}

    /** The threads alive now, to compare with later. */
    public static Set<Thread> snapshot() {
        return Set.copyOf(Thread.getAllStackTraces().keySet());
    }

    /** Waits (up to 10 s) until no live non-daemon {@code xrpc-} thread is there that was not in {@code before}. */
    public static void awaitNoneNewKeepingTheJvmAlive(Set<Thread> before) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet().stream()
                                .filter(t -> !before.contains(t)
                                        && t.isAlive()
                                        && !t.isDaemon()
                                        && t.getName().startsWith("xrpc-"))
                                .map(Thread::getName))
                        .isEmpty());
    }
}
