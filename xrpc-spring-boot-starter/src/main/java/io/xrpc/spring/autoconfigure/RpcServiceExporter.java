package io.xrpc.spring.autoconfigure;

import io.xrpc.config.ServiceOptions;
import io.xrpc.registry.Registry;
import io.xrpc.server.RpcServer;
import io.xrpc.server.ServerInterceptor;
import io.xrpc.spring.RpcService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Collects {@link RpcService} beans as they are created (nothing is instantiated just to look at
 * it) and, when the context has started, exports them on one {@link RpcServer}, which registers
 * them once it listens. On context close it stops first of all lifecycle beans: unregister, wait
 * the unregister delay, drain calls in flight, close.
 */
public class RpcServiceExporter implements BeanPostProcessor, SmartLifecycle {
    private final ObjectProvider<XrpcProperties> properties;
    private final ObjectProvider<Registry> registry;
    private final ObjectProvider<ServerInterceptor> interceptors;
    private final Map<String, Export> exports = new LinkedHashMap<>();
    private volatile RpcServer server;

    private record Export(Class<?> type, Object bean, ServiceOptions options) {
    }

    /** Takes providers: a post-processor is created early and must not pull these in before their time. */
    public RpcServiceExporter(ObjectProvider<XrpcProperties> properties, ObjectProvider<Registry> registry,
                              ObjectProvider<ServerInterceptor> interceptors) {
        this.properties = properties;
        this.registry = registry;
        this.interceptors = interceptors;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        RpcService annotation = AnnotatedElementUtils.findMergedAnnotation(target, RpcService.class);
        if (annotation != null) {
            synchronized (exports) {
                exports.put(beanName, new Export(interfaceOf(target, annotation, beanName), bean,
                        ServiceOptions.builder().version(annotation.version()).group(annotation.group())
                                .weight(annotation.weight()).serializers(annotation.serializers()).build()));
            }
        }
        return bean;
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
            throw new IllegalStateException("@RpcService bean '" + beanName + "' (" + target.getName()
                    + ") implements " + own + "; name the exported one with @RpcService(interfaceClass = ...)");
        }
        return own.get(0);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public synchronized void start() {
        if (server != null || exports.isEmpty()) {
            return;
        }
        XrpcProperties properties = this.properties.getObject();
        XrpcProperties.Server s = properties.getServer();
        RpcServer.Builder b = RpcServer.builder().host(s.getHost()).port(s.getPort())
                .executorThreads(s.getExecutorThreads()).executorQueue(s.getExecutorQueue())
                .maxFrameLength((int) properties.getMaxFrameLength().toBytes())
                .compressThreshold((int) properties.getCompressThreshold().toBytes())
                .heartbeatInterval(properties.getHeartbeatInterval())
                .shutdownGrace(s.getShutdownGrace()).unregisterDelay(s.getUnregisterDelay());
        if (s.getIoThreads() > 0) {
            b.ioThreads(s.getIoThreads());
        }
        if (s.getAdvertisedHost() != null && !s.getAdvertisedHost().isBlank()) {
            b.advertisedHost(s.getAdvertisedHost());
        }
        Registry r = registry.getIfAvailable();
        if (r != null) {
            b.registry(r);
        }
        properties.getAllowedPackages().forEach(b::allowPackage);
        interceptors.orderedStream().forEach(b::interceptor);
        for (Export e : exports.values()) {
            b.service((Class) e.type(), e.bean(), e.options());
        }
        RpcServer built = b.build();
        properties.getAllowedClasses().forEach(built.allowList()::allowClassName);
        server = built.start();
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

    /** Stops before other lifecycle beans (web servers included), starts after them. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 2048;
    }

    /** The running server, or {@code null} when there is nothing to export or it has stopped. */
    public RpcServer server() {
        return server;
    }

    /** Whether any bean is exported, so a server is expected to run. */
    public boolean hasServices() {
        return !exports.isEmpty();
    }
}
