package io.xrpc.spring.autoconfigure;

import io.xrpc.client.RpcClient;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.spring.RpcReference;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.BeansException;
import org.springframework.beans.PropertyValues;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.InstantiationAwareBeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.util.ReflectionUtils;

/**
 * Injects {@link RpcReference} fields and setters while a bean's properties are populated, that is
 * before its {@code @PostConstruct} and {@code afterPropertiesSet} run. Beans are looked at only
 * when Spring creates them, so lazy and prototype beans are not created early. One proxy serves
 * every reference with the same settings. Each bean that receives a proxy is recorded as depending
 * on the client, so the client closes after the beans that use it.
 */
public class RpcReferenceInjector implements InstantiationAwareBeanPostProcessor, BeanFactoryAware, PriorityOrdered {
    static final String CLIENT_BEAN = "xrpcClient";

    private final ObjectProvider<XrpcProperties> properties;
    private final ObjectProvider<RpcClient> client;
    /** The client, once a reference made it (it is lazy: a provider-only application has none). */
    private volatile RpcClient created;

    private final Map<Key, Object> proxies = new ConcurrentHashMap<>();
    private ConfigurableBeanFactory beanFactory;

    private record Key(
            Class<?> type,
            String version,
            String group,
            long timeoutMillis,
            long attemptTimeoutMillis,
            int retries,
            String loadBalancer,
            String cluster,
            String serializer,
            String compressor,
            String url,
            String hedging) {
        static Key of(Class<?> type, RpcReference r) {
            return new Key(
                    type,
                    r.version(),
                    r.group(),
                    r.timeoutMillis(),
                    r.attemptTimeoutMillis(),
                    r.retries(),
                    r.loadBalancer(),
                    r.cluster(),
                    r.serializer(),
                    r.compressor(),
                    r.url(),
                    r.hedging());
        }
    }

    /** Takes providers: a post-processor is created early and must not pull these in before their time. */
    public RpcReferenceInjector(ObjectProvider<XrpcProperties> properties, ObjectProvider<RpcClient> client) {
        this.properties = properties;
        this.client = client;
    }

    /** Before {@code @Autowired} processing, so autowired methods can already use the references. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 3;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableBeanFactory c) {
            this.beanFactory = c;
        }
    }

    @Override
    public PropertyValues postProcessProperties(PropertyValues pvs, Object bean, String beanName)
            throws BeansException {
        Class<?> type = bean.getClass();
        ReflectionUtils.doWithFields(type, field -> {
            RpcReference r = field.getAnnotation(RpcReference.class);
            if (r == null) {
                return;
            }
            if (Modifier.isStatic(field.getModifiers())) {
                throw new BeanCreationException(
                        beanName, "@RpcReference on static field " + field + " is not supported");
            }
            Object proxy = proxyFor(field.getType(), r, beanName, field);
            ReflectionUtils.makeAccessible(field);
            ReflectionUtils.setField(field, bean, proxy);
        });
        ReflectionUtils.doWithMethods(type, method -> {
            RpcReference r = method.getAnnotation(RpcReference.class);
            if (r == null || method.isBridge()) {
                return;
            }
            if (method.getParameterCount() != 1) {
                throw new BeanCreationException(
                        beanName, "@RpcReference method " + method + " must take exactly one argument (a setter)");
            }
            Object proxy = proxyFor(method.getParameterTypes()[0], r, beanName, method);
            ReflectionUtils.makeAccessible(method);
            ReflectionUtils.invokeMethod(method, bean, proxy);
        });
        return pvs;
    }

    private Object proxyFor(Class<?> type, RpcReference r, String beanName, Object where) {
        if (!type.isInterface()) {
            throw new BeanCreationException(
                    beanName, "@RpcReference " + where + " must have an interface type, not " + type.getName());
        }
        Object proxy;
        try {
            proxy = proxies.computeIfAbsent(Key.of(type, r), k -> {
                RpcClient c = client.getObject();
                created = c;
                return c.proxy(type, options(r));
            });
        } catch (TypeCheck.UnsupportedTypeException e) {
            String description = "cannot create the XRpc reference for " + where + ": " + e.getMessage();
            throw new BeanCreationException(
                    beanName,
                    description,
                    XrpcStartupException.unsupportedType(
                            description, "@RpcReference(serializer = ...) or xrpc.client.serializer", e));
        } catch (RuntimeException e) {
            throw new BeanCreationException(
                    beanName, "cannot create the XRpc reference for " + where + ": " + e.getMessage(), e);
        }
        if (beanFactory != null && !beanName.equals(CLIENT_BEAN)) {
            beanFactory.registerDependentBean(CLIENT_BEAN, beanName);
        }
        return proxy;
    }

    private ReferenceOptions options(RpcReference r) {
        XrpcProperties.Client c = properties.getObject().client();
        ReferenceOptions.Builder b = ReferenceOptions.builder()
                .version(r.version())
                .group(r.group())
                .timeout(r.timeoutMillis() > 0 ? Duration.ofMillis(r.timeoutMillis()) : c.timeout())
                .retries(r.retries() >= 0 ? r.retries() : c.retries())
                .loadBalancer(r.loadBalancer().isEmpty() ? c.loadBalancer() : r.loadBalancer())
                .cluster(r.cluster().isEmpty() ? c.cluster() : r.cluster())
                .serializer(r.serializer().isEmpty() ? c.serializer() : r.serializer())
                .compressor(r.compressor().isEmpty() ? c.compressor() : r.compressor())
                .subsetting(c.subsetting().toSubsetting());
        Duration attempt =
                r.attemptTimeoutMillis() > 0 ? Duration.ofMillis(r.attemptTimeoutMillis()) : c.attemptTimeout();
        if (attempt != null) {
            b.attemptTimeout(attempt);
        }
        if (c.retryBudget().maxTokens() == 0) {
            b.noRetryBudget();
        } else {
            b.retryBudget(c.retryBudget().maxTokens(), c.retryBudget().tokenRatio());
        }
        String hedging = r.hedging().isEmpty() ? c.hedging() : r.hedging();
        if (!hedging.isBlank() && !hedging.equals("none")) {
            b.hedging(Hedging.parse(hedging));
        }
        XrpcProperties.parseUrl(r.url()).forEach(b::address);
        return b.build();
    }

    /** The client references were made with, or {@code null} when there is none yet. */
    RpcClient clientIfCreated() {
        return created;
    }
}
