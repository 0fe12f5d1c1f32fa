package io.xrpc.server;

/**
 * How much of an exception a service throws its callers receive ({@link RpcServer.Builder#errorDetails}).
 * Causes and stack traces say what a public-facing server should not: SQL text, file paths, the
 * versions of its libraries. gRPC sends none of it; Dubbo leaves it to the provider; XRpc sends
 * the class and the message by default, and the whole of it to callers a server trusts.
 */
public enum ErrorDetails {
    /**
     * The default. An exception the method does not declare reaches the caller as its class name
     * and its own message, and the caller's {@code remoteStackTrace()} names the reference under
     * which the provider logged the whole of it; a declared exception comes back as itself (its
     * message, fields and stack frames) without its causes.
     */
    MESSAGE,
    /**
     * Everything: an undeclared exception's printed stack trace with every cause's message, a
     * declared exception's cause chain. For callers the provider trusts, such as inside one team.
     */
    FULL
}
