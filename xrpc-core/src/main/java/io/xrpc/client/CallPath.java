package io.xrpc.client;

import io.xrpc.cluster.Attempts;
import io.xrpc.cluster.Cluster;
import io.xrpc.common.Invocation;
import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import io.xrpc.internal.InterceptorChain;
import io.xrpc.serialize.RemoteExceptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * What every call of a reference goes through once its method is known, typed proxy or generic
 * reference alike: the call's credentials, the client's interceptors, then the cluster strategy
 * over the method's {@link Attempts}. Also how a blocked caller waits for the answer.
 */
final class CallPath {
    /** Extra wait beyond a call's last deadline before a blocked caller gives up on its own. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String serviceName;
    /** The client's interceptors joined to the cluster, once rather than per call. */
    private final Function<Invocation, CompletableFuture<Object>> chain;
    /** Null when calls carry no credentials. */
    private final CallCredentials credentials;
    /** Why no call may be sent with the credentials (no TLS), or null. */
    private final String credentialsRefusal;

    private final Cluster cluster;
    /** Each method's attempts, found by the descriptor's identity; null for one the reference does not have. */
    private final Function<MethodDescriptor, Attempts> attempts;

    CallPath(String serviceName, ClientConfig config, Cluster cluster, Function<MethodDescriptor, Attempts> attempts) {
        this.serviceName = serviceName;
        this.credentials = config.credentials;
        this.credentialsRefusal = config.credentialsRefusal;
        this.cluster = cluster;
        this.attempts = attempts;
        this.chain = new InterceptorChain<ClientInterceptor, ClientInterceptor.Chain>(
                        config.interceptors, ClientInterceptor::intercept, next -> next::apply, "client")
                .link(this::send);
    }

    /** Adds the call's credentials and runs it through the interceptors and the cluster; never throws. */
    CompletableFuture<Object> call(ClientMethod m, Invocation inv) {
        if (credentials != null) {
            if (credentialsRefusal != null) {
                return CompletableFuture.failedFuture(new RpcException(
                        RpcStatus.UNAUTHENTICATED, m.target().description() + ": not sent: " + credentialsRefusal));
            }
            String c;
            try {
                c = credentials.credentials(inv);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(new RpcException(
                        RpcStatus.UNAUTHENTICATED,
                        m.target().description() + ": the call credentials failed: " + e,
                        e));
            }
            if (c != null) {
                inv.attachments().put(Invocation.CREDENTIALS, c);
            }
        }
        return chain.apply(inv);
    }

    private CompletableFuture<Object> send(Invocation inv) {
        Attempts a = attempts.apply(inv.method());
        if (a == null) { // an interceptor passed on an invocation of its own making
            return CompletableFuture.failedFuture(new RpcException(
                    RpcStatus.INTERNAL,
                    "an interceptor passed on a" + " call of " + inv.method() + ", which " + serviceName
                            + " does not declare"));
        }
        return cluster.invoke(inv, a);
    }

    /**
     * Blocks until {@code f} ends and returns its value, or throws what it failed with on the
     * caller's thread (a declared exception as itself). The call's deadline holds across its
     * attempts: waits until it, then a little more.
     */
    static Object await(CompletableFuture<Object> f, ClientMethod m, long deadline) throws Throwable {
        try {
            return f.get(deadline - System.nanoTime() + GRACE_NANOS, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw onCallerThread(e.getCause(), m);
        } catch (TimeoutException e) {
            // The deadline timer should have ended the call; this is the backstop that keeps a
            // caller from ever waiting forever.
            throw new RpcException(
                    RpcStatus.DEADLINE_EXCEEDED,
                    m.target().description() + " timed out after " + m.timeoutMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(false);
            throw new RpcException(RpcStatus.CANCELLED, m.target().description() + ": interrupted while waiting", e);
        }
    }

    /**
     * A fresh exception whose stack trace shows the caller, not the event loop that failed the call;
     * for a declared remote exception, that exception itself, its remote frames followed by the
     * caller's.
     */
    private static Throwable onCallerThread(Throwable t, ClientMethod m) {
        Throwable declared = declaredOr(t);
        if (declared != t) {
            RemoteExceptions.appendCallerStack(declared, m.target().description());
            return declared;
        }
        if (t instanceof RpcException r) {
            return r.status() == RpcStatus.APPLICATION_ERROR
                    ? new RpcException(r.getMessage(), r.remoteClassName(), r.remoteMessage(), r.remoteStackTrace())
                    : new RpcException(r.status(), r.getMessage(), r.getCause());
        }
        return t;
    }

    /** {@code f}, failing with a declared exception as itself, as a blocked caller gets it thrown. */
    static CompletableFuture<Object> declaredAsItself(CompletableFuture<Object> f) {
        CompletableFuture<Object> out = new CompletableFuture<>();
        f.whenComplete((v, e) -> {
            if (e == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(declaredOr(Futures.cause(e)));
            }
        });
        return out;
    }

    /** The declared exception a failed call carries, or {@code t} itself. */
    static Throwable declaredOr(Throwable t) {
        return t instanceof RpcException r && r.remoteException() != null ? r.remoteException() : t;
    }
}
