package io.xrpc.server;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.internal.Futures;
import io.xrpc.internal.Invocations;
import io.xrpc.internal.LogLimiter;
import io.xrpc.internal.Texts;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.serialize.SerializationException;
import io.xrpc.transport.RequestHandler;
import io.xrpc.transport.Routes;
import io.xrpc.transport.ServerExchange;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of a routed request, entered once per request from a thread of the call
 * executor (the transport found its route in the {@link ServiceDispatcher} as its head arrived):
 * the deadline (checked when a thread takes the call and again after its arguments are read: a
 * call whose budget ran out never runs), authentication before the arguments are read, reading
 * and checking the arguments, running the interceptors and the implementation, a deadline for an
 * asynchronous result, and turning every outcome into a status: a declared exception carried as
 * itself, any other as text, and a downstream call's retry-safe status never passed on as if
 * this call had not run. The transport ({@link ServerExchange}) does the bytes.
 */
final class CallPolicy implements RequestHandler {
    private static final Logger log = LoggerFactory.getLogger(CallPolicy.class);
    /** Longest explanation of a refused payload (it may quote the payload) sent back. */
    private static final int MAX_DETAIL = 1000;
    /** Exceptions whose traces the callers did not get: a caller can make many, so the lines are limited. */
    private static final LogLimiter errorLog = new LogLimiter(log, "service exceptions");

    /** Null when every call is admitted. */
    private final Authenticator authenticator;
    /** How much of a service's exception its callers receive. */
    private final ErrorDetails errorDetails;

    CallPolicy(Authenticator authenticator, ErrorDetails errorDetails) {
        this.authenticator = authenticator;
        this.errorDetails = errorDetails;
    }

    @Override
    public void handle(ServerExchange ex) {
        ServerMethod method = (ServerMethod) ex.route(); // routes come from the ServiceDispatcher
        if (expired(ex)) {
            ex.discardArguments();
            ex.answerError(
                    RpcStatus.DEADLINE_EXCEEDED,
                    "deadline of " + method.descriptor() + " passed while it waited for a thread on " + ex.server()
                            + "; not run");
            return;
        }
        String refusal = authenticate(method, ex);
        if (refusal != null) { // before a byte of the arguments is read
            ex.discardArguments();
            String reason = Texts.cut(refusal, MAX_DETAIL);
            ex.answerError(RpcStatus.UNAUTHENTICATED, method.descriptor() + " refused: " + reason);
            ex.authenticationRefused(reason);
            return;
        }
        if (authenticator != null) {
            ex.authenticated();
        }
        String busy = ex.admit();
        if (busy != null) {
            ex.discardArguments();
            ex.answerError(RpcStatus.SERVER_BUSY, busy);
            return;
        }
        Object[] args;
        try {
            args = ex.readArguments();
        } catch (ClassNotAllowedException e) {
            ex.answerError(
                    RpcStatus.SERIALIZATION_ERROR,
                    "request for " + method.descriptor() + " refused: " + Texts.cut(e.getMessage(), MAX_DETAIL));
            return;
        } catch (ReadDeadlineException e) {
            answerReadTooLong(ex);
            return;
        } catch (Exception | StackOverflowError e) {
            String problem = "cannot read the arguments of " + method.descriptor() + " with "
                    + ex.serializer().name() + ": " + Texts.cut(e.getMessage(), MAX_DETAIL);
            ex.answerError(RpcStatus.SERIALIZATION_ERROR, problem);
            ex.malformed(problem);
            return;
        }
        if (expired(ex)) { // a reader need not look at the deadline
            answerReadTooLong(ex);
            return;
        }
        if (method.descriptor().isStream()) {
            // Accepted now that the call passed its checks: the caller's messages go to the
            // implementation as the stream parameter; from here the call ends with the stream's end.
            args = method.descriptor().withStream(args, ex.acceptStream());
        }
        String bad = method.checkArguments(args);
        if (bad != null) {
            ex.answerError(RpcStatus.SERIALIZATION_ERROR, bad);
            return;
        }
        Invocation inv = new Invocation(
                method.serviceKey(),
                method.descriptor(),
                args,
                ex.attachments().isEmpty() ? null : ex.attachments(),
                ex.peer(),
                ex.deadlineNanos());
        Invocations.serializer(inv, ex.serializer().name());
        Invocations.peerCertificates(inv, ex.peerCertificates());
        Invocations.requestBytes(inv, ex.requestBytes());
        if (method.descriptor().isStream()) {
            stream(ex, method, inv);
            return;
        }
        ex.invocation(inv);
        CompletableFuture<Object> f = method.call(inv); // the interceptors, then the implementation
        if (f.isDone()) {
            if (!f.isCompletedExceptionally()) {
                complete(ex, f.join(), null); // the usual, synchronous method: no callback to make
            } else {
                // Not join(): wrapping the failure would call its getMessage(), which may throw.
                f.whenComplete((v, t) -> complete(ex, v, t)); // runs now, on this thread
            }
            return;
        }
        // An asynchronous result that never completes must not hold the call open forever.
        Runnable cancel = ex.schedule(
                () -> ex.answerError(
                        RpcStatus.DEADLINE_EXCEEDED,
                        method.descriptor() + " did not complete before its deadline on " + ex.server()),
                Math.max(0, ex.deadlineNanos() - System.nanoTime()));
        f.whenComplete((v, t) -> {
            cancel.run();
            complete(ex, v, t);
        });
    }

    /**
     * A stream call: its deadline covers the whole stream and is set before the implementation
     * runs, whatever it does meanwhile. A method that streams back has its publisher read under
     * the caller's credit, and the call is answered when the publisher ends (or fails); a client
     * stream is answered with its future's value. A stream that must outlive its caller's timeout
     * is given a longer one by its caller.
     */
    private void stream(ServerExchange ex, ServerMethod method, Invocation inv) {
        Runnable cancel = ex.schedule(
                () -> ex.answerError(
                        RpcStatus.DEADLINE_EXCEEDED,
                        method.descriptor() + " streamed past its deadline on " + ex.server()),
                Math.max(0, ex.deadlineNanos() - System.nanoTime()));
        inv.whenAnswered(status -> cancel.run());
        ex.invocation(inv); // answered meanwhile (cancelled, refused): the listeners run now
        if (ex.answered()) {
            return; // nothing of it runs
        }
        CompletableFuture<Object> f = method.call(inv); // the interceptors, then the implementation
        if (!method.descriptor().shape().providerStreams()) {
            f.whenComplete((v, t) -> complete(ex, v, t));
            return;
        }
        f.whenComplete((publisher, t) -> {
            if (t != null) {
                complete(ex, null, t);
            } else if (!(publisher instanceof Flow.Publisher<?> p)) {
                ex.answerError(
                        RpcStatus.INTERNAL,
                        method.descriptor() + " returned "
                                + (publisher == null
                                        ? "null"
                                        : publisher.getClass().getName())
                                + " (expected: a Flow.Publisher)");
            } else {
                ex.send(p).whenComplete((v, e) -> complete(ex, null, e));
            }
        });
    }

    /** {@code null} to let the call go on, else why it is refused: decided before its arguments are read. */
    private String authenticate(ServerMethod method, ServerExchange ex) {
        if (authenticator == null) {
            return null;
        }
        try {
            return authenticator.refuse(
                    ex.attachments().get(Invocation.CREDENTIALS),
                    method.serviceKey(),
                    method.descriptor(),
                    ex.peer(),
                    ex.peerCertificates());
        } catch (RuntimeException e) {
            // Refused, never admitted by accident. Its message stays here: a token parser's
            // message may quote the token, and the peer is not yet trusted.
            return "the authenticator failed (" + e.getClass().getSimpleName() + ")";
        }
    }

    private static boolean expired(ServerExchange ex) {
        return System.nanoTime() - ex.deadlineNanos() >= 0;
    }

    private static void answerReadTooLong(ServerExchange ex) {
        ex.answerError(
                RpcStatus.DEADLINE_EXCEEDED,
                "deadline of " + ex.route().descriptor() + " passed while its arguments were read on " + ex.server()
                        + "; not run");
    }

    /** Answers with the outcome; never throws (it runs inside {@code whenComplete}, which would swallow it). */
    private void complete(ServerExchange ex, Object value, Throwable error) {
        try {
            if (error != null) {
                failed(ex, Futures.cause(error));
                return;
            }
            ex.answer(value);
        } catch (Throwable t) {
            log.error("Failed to answer {} from {}", ex.route().descriptor(), ex.peer(), t);
            ex.answerError(
                    RpcStatus.INTERNAL,
                    "server failed to answer: " + t.getClass().getName());
        }
    }

    private void failed(ServerExchange ex, Throwable cause) {
        Routes.Route method = ex.route();
        if (cause instanceof RpcException r && r.status() != RpcStatus.APPLICATION_ERROR) {
            RpcStatus status = r.status();
            String message = r.getMessage();
            if (status.isSafeToRetry()
                    || status == RpcStatus.DEADLINE_EXCEEDED
                    || status == RpcStatus.CONNECTION_CLOSED) {
                // The call ran and failed on a call of its own; passing that status on would tell
                // our caller it is safe to run this call again somewhere else.
                message = method.descriptor() + " failed on a downstream call: " + status + ": " + message;
                status = RpcStatus.INTERNAL;
            }
            ex.answerError(status, message);
            return;
        }
        String className = cause.getClass().getName();
        boolean full = errorDetails == ErrorDetails.FULL;
        Class<?>[] declared = method.descriptor().exceptionTypes();
        ExceptionValue carried = null;
        String notCarried = null;
        if (declared.length > 0 && RemoteExceptions.isDeclared(cause, declared)) {
            try {
                carried = RemoteExceptions.describe(cause, declared, full, ex.serializer());
            } catch (SerializationException e) {
                // The caller gets the text answer instead of its declared exception: it says why.
                notCarried = RemoteExceptions.notCarried(e.getMessage());
            } catch (RuntimeException | StackOverflowError | LinkageError e) {
                // its getMessage() or getStackTrace() threw, or its class cannot be inspected
                // here: the text answer says what it could
            }
        }
        String text;
        String message;
        try {
            message = cause.getMessage();
            if (full) {
                StringWriter w = new StringWriter(1024);
                cause.printStackTrace(new PrintWriter(w));
                text = w.toString();
            } else if (carried != null) {
                text = null; // part of the method's contract: its frames travel in the carried form
            } else {
                text = logUnderReference(ex, cause);
            }
            if (notCarried != null) {
                text = notCarried + (text == null ? "" : text);
            }
        } catch (RuntimeException e) {
            message = "(its getMessage() threw " + e.getClass().getName() + ")";
            text = null;
        }
        ex.answerApplicationError(className, message, text, carried);
    }

    /**
     * Logs an undeclared exception's trace under a reference, and returns what the caller gets in
     * its place: the reference, or, past the log's rate limit, that it went to DEBUG only.
     */
    private static String logUnderReference(ServerExchange ex, Throwable cause) {
        String reference = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        Routes.Route method = ex.route();
        if (errorLog.warn(
                "{} threw {} to {}; its caller got the class and message only: error {}",
                method.descriptor(),
                cause.getClass().getName(),
                ex.peer(),
                reference,
                cause)) {
            return "(stack trace not sent: the provider logged it as error " + reference + ")";
        }
        log.debug(
                "{} threw {} to {}: error {}",
                method.descriptor(),
                cause.getClass().getName(),
                ex.peer(),
                reference,
                cause);
        return "(stack trace not sent, and not logged: the provider logs at most ten a second; error " + reference
                + " is at DEBUG only)";
    }
}
