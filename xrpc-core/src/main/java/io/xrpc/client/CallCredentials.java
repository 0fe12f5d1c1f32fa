package io.xrpc.client;

import io.xrpc.common.Invocation;

/**
 * Supplies the credentials of each call, such as a bearer token, which travel in the request's
 * {@link Invocation#CREDENTIALS} attachment to the server's {@code io.xrpc.server.Authenticator}, read
 * there before anything else of the request. Asked once per call on the caller's thread, before
 * the interceptors run: keep it quick, caching a token and refreshing it before it expires, as
 * gRPC's {@code CallCredentials} do. Returning {@code null} sends none.
 */
@FunctionalInterface
public interface CallCredentials {
    /** The credentials for {@code invocation}, such as {@code "Bearer eyJ..."}, or {@code null}. */
    String credentials(Invocation invocation);
}
