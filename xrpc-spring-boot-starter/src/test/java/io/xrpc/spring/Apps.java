package io.xrpc.spring;

import jakarta.annotation.PostConstruct;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;

/** The applications the starter tests run. */
final class Apps {
    private Apps() {}

    /** Exports {@link GreeterImpl}, wrapped in a CGLIB proxy whose advice counts calls. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(GreeterImpl.class)
    static class Provider {
        static final AtomicInteger ADVISED = new AtomicInteger();

        @Bean
        static BeanPostProcessor countingProxy() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (!(bean instanceof GreeterImpl)) {
                        return bean;
                    }
                    ProxyFactory f = new ProxyFactory(bean);
                    f.setProxyTargetClass(true);
                    f.addAdvice((MethodInterceptor) inv -> {
                        ADVISED.incrementAndGet();
                        return inv.proceed();
                    });
                    return f.getProxy();
                }
            };
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({GreeterUser.class, LazyUser.class})
    static class Consumer {}

    /** Uses the remote greeter, and records what it saw in {@code @PostConstruct}. */
    static class GreeterUser {
        @RpcReference(timeoutMillis = 5000)
        Greeter greeter;

        @RpcReference(timeoutMillis = 5000)
        Greeter sameSettings;

        Greeter viaSetter;
        boolean injectedBeforePostConstruct;

        @RpcReference(serializer = "hessian")
        void setViaSetter(Greeter greeter) {
            this.viaSetter = greeter;
        }

        @PostConstruct
        void check() {
            injectedBeforePostConstruct = greeter != null && viaSetter != null;
        }
    }

    /** Never asked for: must never be created, references or not. */
    @Lazy
    static class LazyUser {
        static final AtomicInteger CREATED = new AtomicInteger();

        @RpcReference
        Greeter greeter;

        LazyUser() {
            CREATED.incrementAndGet();
        }
    }
}
