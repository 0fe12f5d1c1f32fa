package io.xrpc.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.stereotype.Component;

/**
 * Exports a Spring bean as an XRpc service. The bean is also a component, so classpath scanning
 * finds it. The server starts when the context starts (at the end of its refresh, after every
 * singleton exists) and registers the service once it listens. The bean must be a singleton.
 *
 * <pre>{@code
 * @RpcService(version = "1.0")
 * class OrderServiceImpl implements OrderService { ... }
 * }</pre>
 *
 * <p>Works when the bean is wrapped by an AOP or CGLIB proxy: the proxy is what gets called, so
 * its advice (transactions, security) applies to remote calls too.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Component
public @interface RpcService {

    /** The exported interface; inferred when the class implements exactly one. */
    Class<?> interfaceClass() default void.class;

    String version() default "";

    String group() default "";

    /** Share of calls relative to other providers, 1-10000. */
    int weight() default 100;

    /** Serializers consumers should use; empty means any. */
    String[] serializers() default {};

    /**
     * Runs every method on the connection's event loop instead of a call thread: only for
     * implementations that never block (see {@link io.xrpc.common.NonBlocking}, which marks single
     * methods of the interface).
     */
    boolean nonBlocking() default false;
}
