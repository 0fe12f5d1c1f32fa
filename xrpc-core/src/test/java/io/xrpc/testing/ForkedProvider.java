package io.xrpc.testing;

import io.xrpc.server.RpcServer;

/**
 * A provider of {@link GateService} in a JVM of its own, named by its first argument (a second
 * argument {@code serial} gives it one call thread, {@code slowdown=N} makes its
 * {@link GateService#work} N times slower, {@code adaptive} gives it adaptive concurrency limits): prints
 * {@code READY <port>} and serves until killed, or until its standard input ends (the test JVM
 * that started it is gone).
 */
public final class ForkedProvider {
    private ForkedProvider() {}

    public static void main(String[] args) throws Exception {
        GateServiceImpl impl = new GateServiceImpl(args.length > 0 ? args[0] : "forked");
        RpcServer.Builder b = RpcServer.builder().host("127.0.0.1").service(GateService.class, impl);
        if (args.length > 1 && args[1].startsWith("slowdown=")) {
            impl.slowdown = Integer.parseInt(args[1].substring("slowdown=".length()));
        }
        if (args.length > 1 && args[1].equals("adaptive")) {
            b.adaptiveConcurrency(true);
        }
        if (args.length > 1 && args[1].equals("failfast")) {
            impl.failFast = true;
        }
        if (args.length > 1 && args[1].equals("noqueue")) {
            b.executorQueue(0); // a full executor refuses at once
        }
        if (args.length > 1 && args[1].equals("serial")) {
            b.executorThreads(1).executorQueue(64); // calls run one at a time, in the order they were read
        }
        RpcServer server = b.build().start();
        System.out.println("READY " + server.port());
        System.out.flush();
        ForkedJvm.serveUntilParentExits();
    }
}
