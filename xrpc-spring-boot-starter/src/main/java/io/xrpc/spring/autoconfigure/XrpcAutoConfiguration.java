package io.xrpc.spring.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.xrpc.client.CallCredentials;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.client.RpcClient;
import io.xrpc.cluster.CallCounters;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.server.Authenticator;
import io.xrpc.server.ServerInterceptor;
import io.xrpc.spring.observation.ObservationClientInterceptor;
import io.xrpc.spring.observation.ObservationServerInterceptor;
import io.xrpc.spring.observation.XrpcClientObservationConvention;
import io.xrpc.spring.observation.XrpcServerObservationConvention;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Sets XRpc up in a Spring Boot application: a registry from {@code xrpc.registry.*}, a server for
 * the {@link io.xrpc.spring.RpcService} beans, a client for the {@link io.xrpc.spring.RpcReference}
 * injection points, and, when their libraries are present, an Actuator health indicator, the
 * {@code xrpc} Actuator endpoint and Micrometer observations of every call (timers, and spans with
 * a tracing bridge). {@code xrpc.enabled=false} turns all of it off.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "xrpc", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(XrpcProperties.class)
public class XrpcAutoConfiguration {

    /** The registry both sides share; closed after the server and client that use it. */
    @Bean
    @ConditionalOnMissingBean(Registry.class)
    @ConditionalOnExpression("!'${xrpc.registry.address:}'.isBlank()")
    public Registry xrpcRegistry(XrpcProperties properties, Environment environment) {
        XrpcProperties.Registry r = properties.registry();
        RegistryConfig.Builder b;
        try {
            b = RegistryConfig.builder(r.address());
        } catch (IllegalArgumentException e) {
            throw new XrpcStartupException(
                    "xrpc.registry.address is not a registry address: " + e.getMessage(),
                    "Set xrpc.registry.address to zookeeper://host:2181[,host:2181...], host:2181 or embedded.",
                    e);
        }
        RegistryConfig fromAddress = b.build();
        if (fromAddress.scheme().equals("zookeeper") || fromAddress.scheme().equals("embedded")) {
            // The typed xrpc.registry.* settings are ZooKeeper's parameters, where the address
            // does not set them itself; other schemes get xrpc.registry.parameters as given.
            Map<String, String> typed = new LinkedHashMap<>();
            typed.put(RegistryConfig.SESSION_TIMEOUT, r.sessionTimeout().toString());
            typed.put(RegistryConfig.CONNECT_TIMEOUT, r.connectTimeout().toString());
            typed.put(RegistryConfig.ROOT_PATH, r.rootPath());
            if (r.emptyListGrace() != null) {
                typed.put(RegistryConfig.EMPTY_LIST_GRACE, r.emptyListGrace().toString());
            }
            typed.put(RegistryConfig.SHRINK_GUARD, Double.toString(r.shrinkGuard()));
            typed.put(RegistryConfig.SHRINK_GUARD_WINDOW, r.shrinkGuardWindow().toString());
            typed.put(RegistryConfig.ACL, r.acl());
            typed.put(RegistryConfig.MODE, r.mode());
            // spring.application.name as a node name: what ZooKeeper paths cannot hold becomes '-'.
            String application = !r.application().isBlank()
                    ? r.application()
                    : environment
                            .getProperty("spring.application.name", "")
                            .replaceAll("[^A-Za-z0-9._-]", "-")
                            .replaceFirst("^\\.", "-");
            application = application.substring(0, Math.min(100, application.length()));
            if (!application.isBlank()) {
                typed.put(RegistryConfig.APPLICATION, application);
            }
            if (fromAddress.scheme().equals("embedded") && r.embeddedPort() != null) {
                typed.put(RegistryConfig.EMBEDDED_PORT, r.embeddedPort().toString());
            }
            typed.forEach((name, value) -> {
                if (fromAddress.parameter(name) == null) {
                    b.parameter(name, value);
                }
            });
        }
        r.parameters().forEach(b::parameter);
        // An unset ${ZK_PASSWORD} stays as its literal text; an empty one would be a password too.
        if (unresolved(r.username())) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.registry.username",
                    r.username(),
                    "a placeholder that did not resolve: is the environment" + " variable it names set?");
        }
        if (!r.username().isBlank()) {
            if (r.password().isBlank() || unresolved(r.password())) {
                throw new InvalidConfigurationPropertyValueException(
                        "xrpc.registry.password",
                        unresolved(r.password()) ? "(a placeholder)" : "(empty)",
                        "xrpc.registry.username is set, so its password is needed: "
                                + (unresolved(r.password())
                                        ? "the placeholder did not resolve (is the environment"
                                                + " variable it names set?)"
                                        : "it is empty"));
            }
            b.credentials(r.username(), r.password());
        } else if (!r.password().isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.registry.password", "(set)", "a password without xrpc.registry.username would be ignored");
        }
        RegistryConfig config = b.build();
        try {
            return Registries.create(config);
        } catch (IllegalArgumentException e) {
            throw new XrpcStartupException(
                    "XRpc cannot use the registry " + config + ": " + e.getMessage(),
                    "Fix xrpc.registry.address or the xrpc.registry.* setting the message names; a scheme other than"
                            + " zookeeper and embedded needs the module that provides it on the classpath.",
                    e);
        } catch (RuntimeException e) {
            throw new XrpcStartupException(
                    "XRpc cannot use the registry " + config + ": " + e.getMessage(),
                    "Start the registry at that address, or point xrpc.registry.address at a running ZooKeeper"
                            + " ensemble (embedded runs one inside the application, for development). If the"
                            + " ensemble requires authentication, set xrpc.registry.username and"
                            + " xrpc.registry.password.",
                    e);
        }
    }

    /** Created on the first {@code @RpcReference}: a provider-only application opens no client. */
    @Bean(name = RpcReferenceInjector.CLIENT_BEAN)
    @Lazy
    @ConditionalOnMissingBean(RpcClient.class)
    public RpcClient xrpcClient(
            XrpcProperties properties,
            ObjectProvider<Registry> registry,
            ObjectProvider<ClientInterceptor> interceptors,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<CallCredentials> credentials) {
        XrpcProperties.Client c = properties.client();
        RpcClient.Builder b = properties.applyShared(RpcClient.builder());
        c.applyTo(b);
        Registry r = registry.getIfAvailable();
        if (r != null) {
            b.registry(r);
        }
        if (!c.ssl().bundle().isBlank()) {
            b.tls(XrpcTls.client(sslBundles, c.ssl()));
        }
        credentials.ifAvailable(b::credentials);
        interceptors.orderedStream().forEach(b::interceptor);
        RpcClient client = b.build();
        properties.allowedClasses().forEach(client.allowList()::allowClassName);
        return client;
    }

    @Bean
    public static RpcReferenceInjector xrpcReferenceInjector(
            ObjectProvider<XrpcProperties> properties, ObjectProvider<RpcClient> client) {
        return new RpcReferenceInjector(properties, client);
    }

    @Bean
    public static RpcServiceExporter xrpcServiceExporter(
            ObjectProvider<XrpcProperties> properties,
            ObjectProvider<Registry> registry,
            ObjectProvider<ServerInterceptor> interceptors,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<Authenticator> authenticator) {
        return new RpcServiceExporter(properties, registry, interceptors, sslBundles, authenticator);
    }

    /** A whole value that is a placeholder Spring could not resolve ({@code ${ZK_PASSWORD}} with the variable unset). */
    private static boolean unresolved(String value) {
        return value.matches("\\$\\{[^}]+}");
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "xrpcHealthIndicator")
        XrpcHealthIndicator xrpcHealthIndicator(
                RpcServiceExporter exporter, RpcReferenceInjector references, ObjectProvider<Registry> registry) {
            return new XrpcHealthIndicator(exporter, references, registry);
        }
    }

    /**
     * Client and server calls observed through the application's {@link ObservationRegistry} (Boot
     * makes one when Actuator is present): timers {@code xrpc.client.calls} and
     * {@code xrpc.server.calls}, and with a tracing bridge spans and trace propagation. Without a
     * registry but with a {@code MeterRegistry}, the timers still come from the same observations.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
    static class ObservationConfiguration {
        @Bean
        @ConditionalOnMissingBean
        ObservationClientInterceptor xrpcClientObservation(
                ObjectProvider<ObservationRegistry> observations,
                BeanFactory beans,
                ObjectProvider<XrpcClientObservationConvention> convention) {
            return new ObservationClientInterceptor(registry(observations, beans), convention.getIfUnique());
        }

        @Bean
        @ConditionalOnMissingBean
        ObservationServerInterceptor xrpcServerObservation(
                ObjectProvider<ObservationRegistry> observations,
                BeanFactory beans,
                ObjectProvider<XrpcServerObservationConvention> convention) {
            return new ObservationServerInterceptor(registry(observations, beans), convention.getIfUnique());
        }

        /** The application's registry; else one that only feeds its MeterRegistry; else none. */
        private static ObservationRegistry registry(
                ObjectProvider<ObservationRegistry> observations, BeanFactory beans) {
            ObservationRegistry r = observations.getIfUnique();
            if (r != null) {
                return r;
            }
            if (ClassUtils.isPresent(
                    "io.micrometer.core.instrument.MeterRegistry", XrpcAutoConfiguration.class.getClassLoader())) {
                return MetersOnly.registry(beans);
            }
            return ObservationRegistry.NOOP;
        }
    }

    /** Kept apart so that micrometer-core is loaded only when present. */
    private static final class MetersOnly {
        static ObservationRegistry registry(BeanFactory beans) {
            MeterRegistry meters = beans.getBeanProvider(MeterRegistry.class).getIfUnique();
            if (meters == null) {
                return ObservationRegistry.NOOP;
            }
            ObservationRegistry r = ObservationRegistry.create();
            r.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return r;
        }
    }

    /**
     * Counters of what the authenticator refused: {@code xrpc.server.authentication.refusals}
     * (calls) and {@code xrpc.server.authentication.closures} (connections closed for carrying no
     * authenticated call), read from the server when scraped.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class MeterConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "xrpcServerMeters")
        MeterBinder xrpcServerMeters(RpcServiceExporter exporter) {
            return registry -> {
                FunctionCounter.builder(
                                "xrpc.server.authentication.refusals",
                                exporter,
                                e -> e.server() == null ? 0 : e.server().authenticationRefusals())
                        .description("calls the server's Authenticator refused")
                        .register(registry);
                FunctionCounter.builder(
                                "xrpc.server.authentication.closures",
                                exporter,
                                e -> e.server() == null ? 0 : e.server().authenticationClosures())
                        .description("connections closed for carrying no authenticated call")
                        .register(registry);
            };
        }

        /**
         * What the client's cluster strategy did, over all its references: {@code xrpc.client.retries},
         * {@code xrpc.client.retries.throttled} (calls whose retry or hedge the retry budget held back),
         * {@code xrpc.client.hedges} and {@code xrpc.client.hedges.won}; read when scraped.
         */
        @Bean
        @ConditionalOnMissingBean(name = "xrpcClientMeters")
        MeterBinder xrpcClientMeters(RpcReferenceInjector references) {
            return registry -> {
                clientCounter(
                        registry,
                        references,
                        "xrpc.client.retries",
                        "further attempts after a failure",
                        CallCounters.Snapshot::retries);
                clientCounter(
                        registry,
                        references,
                        "xrpc.client.retries.throttled",
                        "retries and hedges not sent because the retry budget was spent",
                        CallCounters.Snapshot::retriesThrottled);
                clientCounter(
                        registry,
                        references,
                        "xrpc.client.hedges",
                        "hedged attempts sent",
                        CallCounters.Snapshot::hedges);
                clientCounter(
                        registry,
                        references,
                        "xrpc.client.hedges.won",
                        "calls answered by a hedged attempt",
                        CallCounters.Snapshot::hedgesWon);
            };
        }

        private static void clientCounter(
                MeterRegistry registry,
                RpcReferenceInjector references,
                String name,
                String description,
                ToLongFunction<CallCounters.Snapshot> count) {
            FunctionCounter.builder(name, references, r -> {
                        io.xrpc.client.RpcClient c = r.clientIfCreated();
                        return c == null
                                ? 0
                                : c.references().stream()
                                        .mapToLong(v -> count.applyAsLong(v.counters()))
                                        .sum();
                    })
                    .description(description)
                    .register(registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
                "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
            })
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        XrpcEndpoint xrpcEndpoint(
                XrpcProperties properties,
                RpcServiceExporter exporter,
                RpcReferenceInjector references,
                ObjectProvider<Registry> registry) {
            return new XrpcEndpoint(properties, exporter, references, registry);
        }
    }
}
