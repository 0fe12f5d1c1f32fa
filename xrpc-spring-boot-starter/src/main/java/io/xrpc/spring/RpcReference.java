package io.xrpc.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Injects a client proxy for the annotated field's (or one-argument setter's) interface type.
 * Injection happens before {@code @PostConstruct} methods run. References with the same settings
 * share one proxy. Empty or negative attributes mean the {@code xrpc.client.*} defaults.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface RpcReference {

    String version() default "";

    String group() default "";

    /** Deadline of each call, across all its attempts, in milliseconds; -1 for {@code xrpc.client.timeout}. */
    long timeoutMillis() default -1;

    /**
     * The longest one attempt of a call may take, in milliseconds, so that a failover retry has time
     * left; -1 for {@code xrpc.client.attempt-timeout} (none unless set: an attempt may take what is
     * left of the call's deadline).
     */
    long attemptTimeoutMillis() default -1;

    /** Further attempts of the failover cluster; -1 for {@code xrpc.client.retries}. */
    int retries() default -1;

    /** {@code p2c}, {@code random}, {@code round-robin}, {@code least-active} or {@code consistent-hash}. */
    String loadBalancer() default "";

    /** {@code failover}, {@code failfast} or {@code failsafe}. */
    String cluster() default "";

    /** {@code kryo}, {@code hessian} or {@code protostuff}. */
    String serializer() default "";

    /** {@code none} or {@code gzip}. */
    String compressor() default "";

    /** Direct provider addresses, {@code host:port[,host:port]}, bypassing the registry. */
    String url() default "";

    /**
     * Hedging of the interface's {@code @Idempotent} methods: a delay such as {@code 50ms}, a
     * percentile of recent latency such as {@code p95}, {@code none}, or empty for
     * {@code xrpc.client.hedging}. Methods not marked {@code @Idempotent} are never hedged.
     */
    String hedging() default "";
}
