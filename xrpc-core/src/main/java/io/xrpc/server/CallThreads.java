package io.xrpc.server;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;

/**
 * What kind of thread runs a call that is not {@link io.xrpc.common.NonBlocking}. Either way the
 * server keeps the same bounded pool ({@link RpcServer.Builder#executorThreads},
 * {@link RpcServer.Builder#executorQueue}) and answers {@code SERVER_BUSY} when it is full, so the
 * choice changes what a hand-off costs, not how many calls may run or wait.
 */
public enum CallThreads {
    /** Platform threads (the default, and Dubbo's): a call handed over wakes a parked OS thread. */
    PLATFORM,
    /**
     * Virtual threads, on JDK 21 or later: a call handed over is a task queued to a carrier thread
     * rather than a parked OS thread woken. Measured beside platform threads in the same run (JDK
     * 25, docs/BENCHMARKS.md), neither the provider's CPU per call nor its throughput differed beyond
     * the noise, so this is not the default; it suits services whose calls mostly wait on I/O.
     * Blocking service code stays safe: a virtual thread
     * that blocks frees its carrier, except, on JDK 21 to 23, while it holds a {@code synchronized}
     * monitor or runs native code ("pinning"; JDK 24 no longer pins on monitors), where it holds
     * one of the carriers (one per core) until it returns. On JDK 17 to 20 the server refuses to
     * build with an error naming the JDK.
     */
    VIRTUAL;

    /**
     * Null when this JVM can make this kind of thread; otherwise why not, naming the JDK, for a
     * start-up error (the Spring Boot starter names its property with it).
     */
    public String unavailableReason() {
        if (this == PLATFORM) {
            return null;
        }
        return VirtualThreads.BUILDER == null
                ? "virtual threads need JDK 21 or later; this JVM is " + System.getProperty("java.vm.name") + " "
                        + Runtime.version()
                : null;
    }

    /**
     * Virtual threads named {@code name-N} for {@link #VIRTUAL}; {@code null} for {@link #PLATFORM},
     * whose threads are the transport's own kind. Fails at once, naming the running JDK, where this
     * kind does not exist.
     */
    ThreadFactory factory(String name) {
        if (this == PLATFORM) {
            return null;
        }
        String reason = unavailableReason();
        if (reason != null) {
            throw new IllegalStateException(
                    "callThreads(VIRTUAL): " + reason + " (use CallThreads.PLATFORM, the default, or run on JDK 21+)");
        }
        return VirtualThreads.factory(name + "-");
    }

    /** {@code Thread.ofVirtual().name(prefix, 0).factory()}, looked up once so that the code builds for JDK 17. */
    private static final class VirtualThreads {
        /** {@code (prefix) -> Thread.ofVirtual().name(prefix, 0).factory()}, or null before JDK 21. */
        static final MethodHandle BUILDER = lookUp();

        private static MethodHandle lookUp() {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            try {
                Class<?> builder = Class.forName("java.lang.Thread$Builder$OfVirtual");
                MethodHandle ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(builder));
                MethodHandle named =
                        lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class, long.class));
                MethodHandle factory =
                        lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
                // prefix -> factory(name(ofVirtual(), prefix, 0))
                MethodHandle namedFresh =
                        MethodHandles.foldArguments(MethodHandles.insertArguments(named, 2, 0L), ofVirtual);
                return MethodHandles.filterReturnValue(namedFresh, factory);
            } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
                return null;
            }
        }

        static ThreadFactory factory(String prefix) {
            try {
                return (ThreadFactory) BUILDER.invoke(prefix);
            } catch (Throwable e) {
                throw new IllegalStateException(
                        "callThreads(VIRTUAL): cannot make virtual threads on " + Runtime.version() + ": " + e, e);
            }
        }
    }
}
