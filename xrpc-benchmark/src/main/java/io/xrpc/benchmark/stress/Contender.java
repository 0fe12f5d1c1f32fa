package io.xrpc.benchmark.stress;

import java.util.List;

/**
 * A framework the stress tool can put beside XRpc. Built-ins are {@code xrpc} and
 * {@code raw-netty}; others ({@code grpc}) live in the {@code peers} Maven profile, so that their
 * dependencies never reach XRpc's own modules, and are found by name:
 * {@code io.xrpc.benchmark.peers.<Name>Contender}.
 */
public interface Contender {

    /** Starts a provider of the four scenarios on 127.0.0.1 and returns its port. */
    AutoCloseable startServer(int[] port) throws Exception;

    /** A client for {@code scenario} against {@code port}; closed by the tool. */
    StressTool.Call caller(String scenario, int port, List<AutoCloseable> resources) throws Exception;

    /** The peer contender called {@code name}, or {@code null} when it is not on the class path. */
    static Contender peer(String name) {
        String cls =
                "io.xrpc.benchmark.peers." + Character.toUpperCase(name.charAt(0)) + name.substring(1) + "Contender";
        try {
            return (Contender) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + cls, e);
        }
    }
}
