package io.xrpc.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a service method (or every method of a service interface) that never blocks: no I/O, no
 * locks held long, no waiting on other calls; it computes and returns, or returns a future. The
 * server then runs it on the connection's event loop, as gRPC's direct executor and Dubbo's
 * {@code direct} dispatcher do, saving the hand-off to a call thread (a thread wake-up per call).
 * A method that blocks anyway holds every connection of that event loop meanwhile: the server
 * logs a warning, once per method, when one holds the loop longer than 50 ms. A request whose body
 * is over 64 KiB still goes to a call thread, so that reading a large (or hostile) payload never
 * holds the loop. The server's authenticator and interceptors run where the method runs, on the
 * loop too (as gRPC's interceptors do under a direct executor): mark only methods whose
 * interceptors do not block either. {@code ServiceOptions.nonBlocking(true)} marks a whole service
 * at export.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface NonBlocking {}
