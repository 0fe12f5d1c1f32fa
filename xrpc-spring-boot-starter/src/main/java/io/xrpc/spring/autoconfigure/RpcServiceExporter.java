package io.xrpc.spring.autoconfigure;

import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.Registry;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.server.Authenticator;
import io.xrpc.server.RpcServer;
import io.xrpc.server.ServerInterceptor;
import io.xrpc.spring.RpcService;
import java.util.ArrayList;
import java.util.List;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;

/**
 * Exports the {@link RpcService} beans on one {@link RpcServer} when the context starts, and
 * registers them once it listens. The beans are looked up by annotation at that point and fetched
 * from the context, so what is exported is the finished bean (with every AOP proxy applied, lazy
 * beans included), never a half-wrapped one. On context close it stops before the other lifecycle
 * beans: unregister, wait the unregister delay, drain calls in flight, close.
 */
public class RpcServiceExporter implements SmartLifecycle, BeanFactoryAware {
    private final ObjectProvider<XrpcProperties> properties;
    private final ObjectProvider<Registry> registry;
    private final ObjectProvider<ServerInterceptor> interceptors;
    private final ObjectProvider<SslBundles> sslBundles;
    private final ObjectProvider<Authenticator> authenticator;
    private ListableBeanFactory beanFactory;
    private volatile boolean hasServices;
    private volatile RpcServer server;

    /** Takes providers so that nothing is pulled in before the context starts. */
    public RpcServiceExporter(
            ObjectProvider<XrpcProperties> properties,
            ObjectProvider<Registry> registry,
            ObjectProvider<ServerInterceptor> interceptors,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<Authenticator> authenticator) {
        this.authenticator = authenticator;
        this.properties = properties;
        this.registry = registry;
        this.interceptors = interceptors;
        this.sslBundles = sslBundles;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ListableBeanFactory) beanFactory;
    }

    private static Class<?> interfaceOf(Class<?> target, RpcService annotation, String beanName) {
        if (annotation.interfaceClass() != void.class) {
            if (!annotation.interfaceClass().isAssignableFrom(target)) {
                throw new IllegalStateException("@RpcService bean '" + beanName + "' (" + target.getName()
                        + ") does not implement " + annotation.interfaceClass().getName());
            }
            return annotation.interfaceClass();
        }
        Class<?>[] all = ClassUtils.getAllInterfacesForClass(target);
        List<Class<?>> own = new ArrayList<>();
        for (Class<?> i : all) {
            if (!i.getName().startsWith("java.") && !i.getName().startsWith("org.springframework.")) {
                own.add(i);
            }
        }
        if (own.size() != 1) {
            throw new IllegalStateException("@RpcService bean '" + beanName + "' (" + target.getName() + ") implements "
                    + own + "; name the exported one with @RpcService(interfaceClass = ...)");
        }
        return own.get(0);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public synchronized void start() {
        if (server != null) {
            return;
        }
        String[] names = beanFactory.getBeanNamesForAnnotation(RpcService.class);
        hasServices = names.length > 0;
        if (!hasServices) {
            return;
        }
        XrpcProperties properties = this.properties.getObject();
        XrpcProperties.Server s = properties.server();
        RpcServer.Builder b = properties.applyShared(RpcServer.builder());
        s.applyTo(b);
        Registry r = registry.getIfAvailable();
        if (r != null) {
            b.registry(r);
        }
        interceptors.orderedStream().forEach(b::interceptor);
        for (String name : names) {
            if (!beanFactory.isSingleton(name)) {
                throw new IllegalStateException(
                        "@RpcService bean '" + name + "' is not a singleton: a provider" + " exports one instance");
            }
            Object bean = beanFactory.getBean(name);
            Class<?> target = AopUtils.getTargetClass(bean);
            RpcService annotation = beanFactory.findAnnotationOnBean(name, RpcService.class);
            b.service(
                    (Class) interfaceOf(target, annotation, name),
                    bean,
                    ServiceOptions.builder()
                            .version(annotation.version())
                            .group(annotation.group())
                            .weight(annotation.weight())
                            .serializers(annotation.serializers())
                            .nonBlocking(annotation.nonBlocking())
                            .build());
        }
        authenticator.ifAvailable(b::authenticator);
        if (!s.ssl().bundle().isBlank()) {
            b.tls(XrpcTls.server(sslBundles, s.ssl()));
        }
        RpcServer built;
        try {
            built = b.build();
        } catch (TypeCheck.UnsupportedTypeException e) {
            throw XrpcStartupException.unsupportedType(
                    "XRpc cannot export the @RpcService beans: " + e.getMessage(),
                    "@RpcService(serializers = ...), or xrpc.client.serializer for its callers",
                    e);
        }
        properties.allowedClasses().forEach(built.allowList()::allowClassName);
        try {
            server = built.start();
        } catch (RuntimeException e) {
            // The start failed whole (nothing listens, no thread is left); say which properties to change.
            throw new XrpcStartupException(
                    "XRpc provider cannot start with xrpc.server.host=" + s.host() + " and xrpc.server.port=" + s.port()
                            + ": " + e.getMessage(),
                    "Choose another"
                            + " xrpc.server.port (0 picks a free one), stop what holds it, or bind an address of this"
                            + " machine with xrpc.server.host.",
                    e);
        }
    }

    @Override
    public synchronized void stop() {
        RpcServer s = server;
        if (s != null) {
            s.close();
            server = null;
        }
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    /** The highest phase: stops before other lifecycle beans (web servers included), starts after them. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    /** The running server, or {@code null} when there is nothing to export or it has stopped. */
    public RpcServer server() {
        return server;
    }

    /** Whether any bean is exported, so a server is expected to run. */
    public boolean hasServices() {
        return hasServices;
    }
}
