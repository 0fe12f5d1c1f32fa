package io.xrpc.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a service method that may safely run more than once for one call (a read, or a write
 * keyed by the caller). The {@code failover} cluster retries such a method on another provider
 * after a timeout or a connection lost mid-call; other methods are retried only when the request
 * certainly did not run.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {}
