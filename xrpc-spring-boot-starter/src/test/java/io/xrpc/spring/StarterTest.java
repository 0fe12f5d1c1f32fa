package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.xrpc.client.CallCredentials;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.server.Authenticator;
import io.xrpc.server.CallThreads;
import io.xrpc.spring.autoconfigure.RpcServiceExporter;
import io.xrpc.spring.autoconfigure.XrpcHealthIndicator;
import io.xrpc.spring.autoconfigure.XrpcProperties;
import io.xrpc.spring.custom.ShoutingSerializerProvider;
import io.xrpc.spring.observation.DefaultXrpcClientObservationConvention;
import io.xrpc.spring.observation.XrpcClientContext;
import io.xrpc.testing.CallLoad;
import io.xrpc.testing.XrpcThreads;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/** Provider and consumer Spring Boot contexts in one JVM against an in-process ZooKeeper. */
class StarterTest {
    @RegisterExtension
    final TestZooKeeper zk = new TestZooKeeper();

    private ConfigurableApplicationContext start(Class<?> app, String... properties) {
        return new SpringApplicationBuilder(app)
                .web(WebApplicationType.NONE)
                .properties(
                        "xrpc.registry.address=" + zk.getConnectString(),
                        "xrpc.registry.username=" + TestZooKeeper.USER,
                        "xrpc.registry.password=" + TestZooKeeper.PASSWORD,
                        "xrpc.server.host=127.0.0.1",
                        "xrpc.server.port=0",
                        "xrpc.server.unregister-delay=300ms",
                        "spring.main.banner-mode=off")
                .properties(properties)
                .run();
    }

    @Test
    void injectedProxiesCallTheExportedServiceIncludingAsyncAndExceptions() throws Exception {
        int advisedBefore = Apps.Provider.ADVISED.get();
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class);
                ConfigurableApplicationContext consumer = start(Apps.Consumer.class)) {
            Apps.GreeterUser user = consumer.getBean(Apps.GreeterUser.class);
            assertThat(user.injectedBeforePostConstruct).isTrue();
            assertThat(user.greeter.hello("spring")).isEqualTo("hello spring");
            assertThat(user.viaSetter.hello("hessian")).isEqualTo("hello hessian");
            assertThat(user.greeter.helloAsync("later").get(5, TimeUnit.SECONDS))
                    .isEqualTo("async hello later");
            assertThatThrownBy(() -> user.greeter.fail("bad input")).isInstanceOfSatisfying(RpcException.class, e -> {
                assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR);
                assertThat(e.remoteClassName()).isEqualTo(IllegalArgumentException.class.getName());
                assertThat(e.remoteMessage()).isEqualTo("bad input");
            });
            // The exported bean is the AOP proxy: its advice ran for the remote calls.
            assertThat(Apps.Provider.ADVISED.get() - advisedBefore).isGreaterThanOrEqualTo(4);
            // One proxy per distinct reference configuration.
            assertThat(user.sameSettings).isSameAs(user.greeter);
            assertThat(user.viaSetter).isNotSameAs(user.greeter);
            assertThat(Apps.LazyUser.CREATED.get())
                    .as("lazy beans are not created to be scanned")
                    .isZero();

            XrpcHealthIndicator health = provider.getBean(XrpcHealthIndicator.class);
            assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
            assertThat(health.health(true).getDetails().get("services").toString())
                    .contains(Greeter.class.getName());
            Object references = consumer.getBean(XrpcHealthIndicator.class)
                    .health(true)
                    .getDetails()
                    .get("references");
            assertThat(references)
                    .asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry(Greeter.class.getName(), 1);
            assertThat(provider.getBeanFactory().containsSingleton("xrpcClient"))
                    .as("a provider-only app opens no client")
                    .isFalse();
        }
    }

    @Test
    void aProviderWithLazyInitializationStillExportsItsServices() {
        try (ConfigurableApplicationContext provider =
                        start(Apps.Provider.class, "spring.main.lazy-initialization=true");
                ConfigurableApplicationContext consumer = start(Apps.Consumer.class)) {
            assertThat(consumer.getBean(Apps.GreeterUser.class).greeter.hello("lazy"))
                    .isEqualTo("hello lazy");
        }
    }

    @Test
    void metricsAreRecordedWhenAMeterRegistryIsPresent() throws Exception {
        try (ConfigurableApplicationContext provider = new SpringApplicationBuilder(Apps.Provider.class)
                        .initializers(
                                ctx -> ctx.getBeanFactory().registerSingleton("meters", new SimpleMeterRegistry()))
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address(),
                                "xrpc.server.host=127.0.0.1",
                                "xrpc.server.port=0",
                                "xrpc.server.unregister-delay=300ms",
                                "spring.main.banner-mode=off")
                        .run();
                ConfigurableApplicationContext consumer = new SpringApplicationBuilder(Apps.Consumer.class)
                        .initializers(ctx -> {
                            ctx.getBeanFactory().registerSingleton("meters", new SimpleMeterRegistry());
                            // The application's convention adds a tag to the default ones.
                            ctx.getBeanFactory()
                                    .registerSingleton("convention", new DefaultXrpcClientObservationConvention() {
                                        @Override
                                        public KeyValues getLowCardinalityKeyValues(XrpcClientContext context) {
                                            return super.getLowCardinalityKeyValues(context)
                                                    .and("region", "eu");
                                        }
                                    });
                        })
                        .web(WebApplicationType.NONE)
                        .properties("xrpc.registry.address=" + zk.address(), "spring.main.banner-mode=off")
                        .run()) {
            consumer.getBean(Apps.GreeterUser.class).greeter.hello("metrics");
            MeterRegistry meters = consumer.getBean(MeterRegistry.class);
            assertThat(meters.get("xrpc.client.calls")
                            .tag("status", "OK")
                            .tag("method", "hello(java.lang.String)")
                            .tag("serializer", "kryo")
                            .tag("service", Greeter.class.getName())
                            .tag("region", "eu")
                            .timer()
                            .count())
                    .isEqualTo(1);
            MeterRegistry providerMeters = provider.getBean(MeterRegistry.class);
            assertThat(providerMeters
                            .get("xrpc.server.calls")
                            .tag("status", "OK")
                            .tag("method", "hello(java.lang.String)")
                            .timer()
                            .count())
                    .isEqualTo(1);
            // The same call over HTTP on the provider's port is counted as one more of that method:
            // it walked the same path, interceptors and observations included.
            int port = provider.getBean(io.xrpc.spring.autoconfigure.RpcServiceExporter.class)
                    .server()
                    .endpoint()
                    .port();
            java.net.http.HttpResponse<String> viaHttp = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/"
                                            + Greeter.class.getName() + "/hello(java.lang.String)"))
                                    .header("content-type", "application/json")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("\"http\""))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(viaHttp.statusCode()).as(viaHttp.body()).isEqualTo(200);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(providerMeters
                                    .find("xrpc.server.calls")
                                    .tag("status", "OK")
                                    .tag("method", "hello(java.lang.String)")
                                    .timers()
                                    .stream()
                                    .mapToLong(t -> t.count())
                                    .sum())
                            .isEqualTo(2));
            // The method runs and returns; its result cannot be written. The provider counts what
            // the caller got, not what the implementation returned.
            assertThatThrownBy(() ->
                            consumer.getBean(Apps.GreeterUser.class).greeter.unwritable())
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.SERIALIZATION_ERROR));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(providerMeters
                                    .find("xrpc.server.calls")
                                    .tag("method", "unwritable()")
                                    .tag("status", "SERIALIZATION_ERROR")
                                    .timers())
                            .hasSize(1));
            assertThat(providerMeters
                            .find("xrpc.server.calls")
                            .tag("method", "unwritable()")
                            .tag("status", "OK")
                            .timers())
                    .isEmpty();
        }
    }

    @Test
    void bootsObservationSwitchTurnsXrpcObservationsOff() {
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class);
                ConfigurableApplicationContext consumer = new SpringApplicationBuilder(Apps.Consumer.class)
                        .initializers(
                                ctx -> ctx.getBeanFactory().registerSingleton("meters", new SimpleMeterRegistry()))
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address(),
                                "spring.main.banner-mode=off",
                                "management.observations.enable.xrpc=false")
                        .run()) {
            assertThat(consumer.getBean(Apps.GreeterUser.class).greeter.hello("unobserved"))
                    .isEqualTo("hello unobserved");
            assertThat(consumer.getBean(MeterRegistry.class)
                            .find("xrpc.client.calls")
                            .timers())
                    .isEmpty();
        }
    }

    @Test
    void withoutAnObservationRegistryTheTimersStillComeFromAMeterRegistry() {
        String noObservations = "spring.autoconfigure.exclude="
                + "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration";
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class, noObservations);
                ConfigurableApplicationContext consumer = new SpringApplicationBuilder(Apps.Consumer.class)
                        .initializers(
                                ctx -> ctx.getBeanFactory().registerSingleton("meters", new SimpleMeterRegistry()))
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address(), "spring.main.banner-mode=off", noObservations)
                        .run()) {
            assertThat(consumer.getBeanNamesForType(ObservationRegistry.class)).isEmpty();
            consumer.getBean(Apps.GreeterUser.class).greeter.hello("meters only");
            assertThat(consumer.getBean(MeterRegistry.class)
                            .get("xrpc.client.calls")
                            .tag("status", "OK")
                            .tag("method", "hello(java.lang.String)")
                            .timer()
                            .count())
                    .isEqualTo(1);
        }
    }

    @Test
    void aProviderOnATakenPortFailsNamingThePropertyAndLeavesNoThreadBehind() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (ConfigurableApplicationContext first = start(Apps.Provider.class, "xrpc.server.port=" + port)) {
            Set<Thread> before = XrpcThreads.snapshot();
            assertThatThrownBy(() -> start(Apps.Provider.class, "xrpc.server.port=" + port))
                    .hasStackTraceContaining("xrpc.server.port=" + port)
                    .hasStackTraceContaining("already in use");
            // Spring's failure closed the second context; nothing of its server may keep the JVM up.
            XrpcThreads.awaitNoneNewKeepingTheJvmAlive(before);
        }
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void virtualCallThreadsBeforeJdk21StopStartUpNamingThePropertyAndTheJdk() {
        assertThatThrownBy(() -> start(Apps.Provider.class, "xrpc.server.call-threads=virtual"))
                .hasStackTraceContaining("xrpc.server.call-threads")
                .hasStackTraceContaining("virtual threads need JDK 21 or later; this JVM is")
                .hasStackTraceContaining(Runtime.version().toString());
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualCallThreadsFromAProperty() {
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class, "xrpc.server.call-threads=virtual");
                ConfigurableApplicationContext consumer = start(Apps.Consumer.class)) {
            assertThat(consumer.getBean(Apps.GreeterUser.class).greeter.hello("virtual"))
                    .isEqualTo("hello virtual");
            assertThat(provider.getBean(XrpcProperties.class).server().callThreads())
                    .isEqualTo(CallThreads.VIRTUAL);
        }
    }

    @Test
    void anApplicationsOwnSerializerAddedAsTheReadmeSaysIsAValidName() {
        // Before, the starter accepted only kryo, hessian and protostuff: this stopped start-up
        // with "expected one of [hessian, kryo, protostuff]".
        int writes = ShoutingSerializerProvider.WRITES.get();
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class);
                ConfigurableApplicationContext consumer =
                        start(Apps.Consumer.class, "xrpc.client.serializer=shouting")) {
            assertThat(consumer.getBean(Apps.GreeterUser.class).greeter.hello("custom"))
                    .isEqualTo("hello custom");
            assertThat(ShoutingSerializerProvider.WRITES.get() - writes)
                    .as("the request and its answer written by it")
                    .isGreaterThanOrEqualTo(2);
        }
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.client.serializer=yaml"))
                .hasStackTraceContaining("expected one of [fory, hessian, json, kryo, protobuf, protostuff, shouting");
    }

    @Test
    void retriesOfTheClustersStrategyAreMetrics() throws Exception {
        // Two providers that each run one call at a time and queue none: of 20 calls of 50 ms made
        // at once most are refused SERVER_BUSY, and failover retries them on the other provider.
        try (ConfigurableApplicationContext p1 = start(
                        Apps.Provider.class,
                        "xrpc.server.executor-threads=1",
                        "xrpc.server.executor-queue=0",
                        "test.provider-name=a");
                ConfigurableApplicationContext p2 = start(
                        Apps.Provider.class,
                        "xrpc.server.executor-threads=1",
                        "xrpc.server.executor-queue=0",
                        "test.provider-name=b");
                ConfigurableApplicationContext consumer = start(Apps.Consumer.class)) {
            Greeter greeter = consumer.getBean(Apps.GreeterUser.class).greeter;
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < 20; i++) {
                    seen.add(greeter.whoAmI());
                }
                return seen.size() == 2; // the consumer sees both providers
            });
            ExecutorService callers = Executors.newFixedThreadPool(20);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    calls.add(callers.submit(() -> {
                        try {
                            greeter.slow(50);
                        } catch (RpcException busyEverywhere) {
                            // counted all the same
                        }
                    }));
                }
                for (Future<?> f : calls) {
                    f.get(20, TimeUnit.SECONDS);
                }
            } finally {
                callers.shutdownNow();
            }
            MeterRegistry meters = consumer.getBean(MeterRegistry.class);
            long retries = consumer.getBean(RpcClient.class).references().stream()
                    .mapToLong(r -> r.counters().retries())
                    .sum();
            assertThat(retries).as("retries of the 20 calls").isPositive();
            assertThat(meters.get("xrpc.client.retries").functionCounter().count())
                    .isEqualTo((double) retries);
        }
    }

    @Test
    void credentialsAndAnAuthenticatorAreTakenFromBeans() {
        Authenticator onlyGood = (credentials, service, method, peer) ->
                "Bearer good".equals(credentials) ? null : "bearer token required";
        try (ConfigurableApplicationContext provider = new SpringApplicationBuilder(Apps.Provider.class)
                        .initializers(ctx -> ctx.getBeanFactory().registerSingleton("auth", onlyGood))
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address(),
                                "xrpc.server.host=127.0.0.1",
                                "xrpc.server.port=0",
                                "xrpc.server.unregister-delay=300ms",
                                "spring.main.banner-mode=off")
                        .run();
                ConfigurableApplicationContext good = new SpringApplicationBuilder(Apps.Consumer.class)
                        .initializers(ctx ->
                                ctx.getBeanFactory().registerSingleton("token", (CallCredentials) inv -> "Bearer good"))
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address(),
                                "spring.main.banner-mode=off",
                                "xrpc.client.credentials-over-plaintext=true")
                        .run();
                ConfigurableApplicationContext plaintext = new SpringApplicationBuilder(Apps.Consumer.class)
                        .initializers(ctx ->
                                ctx.getBeanFactory().registerSingleton("token", (CallCredentials) inv -> "Bearer good"))
                        .web(WebApplicationType.NONE)
                        .properties("xrpc.registry.address=" + zk.address(), "spring.main.banner-mode=off")
                        .run();
                ConfigurableApplicationContext anonymous = start(Apps.Consumer.class)) {
            assertThat(good.getBean(Apps.GreeterUser.class).greeter.hello("me")).isEqualTo("hello me");
            // Without TLS the token is not sent unless the opt-out says so.
            assertThatThrownBy(() ->
                            plaintext.getBean(Apps.GreeterUser.class).greeter.hello("me"))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                        assertThat(e.getMessage()).contains("sent only over TLS");
                    });
            assertThatThrownBy(() ->
                            anonymous.getBean(Apps.GreeterUser.class).greeter.hello("me"))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.status()).isEqualTo(RpcStatus.UNAUTHENTICATED);
                        assertThat(e.getMessage()).contains("bearer token required");
                    });
            // Refusals are counted, and the count is a metric. The server counts a refusal after
            // answering it (the answer goes out before any GOAWAY it causes), so the caller may
            // see its answer first: wait for the count.
            MeterRegistry meters = provider.getBean(MeterRegistry.class);
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(meters.get("xrpc.server.authentication.refusals")
                                .functionCounter()
                                .count())
                        .isEqualTo(1.0);
                assertThat(provider.getBean(RpcServiceExporter.class).server().authenticationRefusals())
                        .isEqualTo(1);
            });
        }
    }

    @Test
    void registryParametersInTheAddressWinOverTheTypedDefaults() throws Exception {
        try (ConfigurableApplicationContext provider = new SpringApplicationBuilder(Apps.Provider.class)
                        .web(WebApplicationType.NONE)
                        .properties(
                                "xrpc.registry.address=" + zk.address() + "?root-path=/shop",
                                "xrpc.server.host=127.0.0.1",
                                "xrpc.server.port=0",
                                "xrpc.server.unregister-delay=0s",
                                "spring.application.name=order service",
                                "spring.main.banner-mode=off")
                        .run();
                CuratorFramework inspector = zk.inspector()) {
            // Before: the typed xrpc.registry.root-path default (/xrpc) replaced the address's.
            assertThat(inspector.checkExists().forPath("/shop")).isNotNull();
            assertThat(inspector.checkExists().forPath("/xrpc")).isNull();
            // One node per instance, under the application Spring names (what a path cannot hold as '-').
            assertThat(inspector.getChildren().forPath("/shop/apps/order-service/instances"))
                    .hasSize(1);
        }
    }

    @Test
    void requiringClientCertificatesWithoutATrustStoreStopsStartUp() throws Exception {
        X509Bundle ca = new CertificateBuilder()
                .subject("CN=test CA")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        X509Bundle server = new CertificateBuilder()
                .subject("CN=localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .ecp256()
                .buildIssuedBy(ca);
        // Spring would otherwise trust the JDK's public authorities for client certificates.
        assertThatThrownBy(() -> start(
                        Apps.Provider.class,
                        "spring.ssl.bundle.pem.provider.keystore.certificate=file:" + server.toTempCertChainPem(),
                        "spring.ssl.bundle.pem.provider.keystore.private-key=file:" + server.toTempPrivateKeyPem(),
                        "xrpc.server.ssl.bundle=provider",
                        "xrpc.server.ssl.client-auth=require"))
                .hasStackTraceContaining("xrpc.server.ssl.client-auth=require needs a trust store");
    }

    @Test
    void mutualTlsFromSpringSslBundles() throws Exception {
        X509Bundle ca = new CertificateBuilder()
                .subject("CN=test CA")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        X509Bundle server = new CertificateBuilder()
                .subject("CN=localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .ecp256()
                .buildIssuedBy(ca);
        X509Bundle client = new CertificateBuilder()
                .subject("CN=consumer")
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
        String caPem = "file:" + ca.toTempRootCertPem();
        try (ConfigurableApplicationContext provider = start(
                        Apps.Provider.class,
                        "spring.ssl.bundle.pem.provider.keystore.certificate=file:" + server.toTempCertChainPem(),
                        "spring.ssl.bundle.pem.provider.keystore.private-key=file:" + server.toTempPrivateKeyPem(),
                        "spring.ssl.bundle.pem.provider.truststore.certificate=" + caPem,
                        "xrpc.server.ssl.bundle=provider",
                        "xrpc.server.ssl.client-auth=require");
                ConfigurableApplicationContext consumer = start(
                        Apps.Consumer.class,
                        "spring.ssl.bundle.pem.consumer.keystore.certificate=file:" + client.toTempCertChainPem(),
                        "spring.ssl.bundle.pem.consumer.keystore.private-key=file:" + client.toTempPrivateKeyPem(),
                        "spring.ssl.bundle.pem.consumer.truststore.certificate=" + caPem,
                        "xrpc.client.ssl.bundle=consumer");
                ConfigurableApplicationContext plaintext = start(Apps.Consumer.class)) {
            assertThat(consumer.getBean(Apps.GreeterUser.class).greeter.hello("tls"))
                    .isEqualTo("hello tls");
            assertThatThrownBy(() ->
                            plaintext.getBean(Apps.GreeterUser.class).greeter.hello("plain"))
                    .isInstanceOf(RpcException.class)
                    .hasStackTraceContaining("requires TLS");
        }
    }

    @Test
    void propertiesBindAndABadValueStopsStartUpNamingTheProperty() {
        try (ConfigurableApplicationContext consumer = start(
                Apps.Consumer.class,
                "xrpc.client.timeout=1500ms",
                "xrpc.client.load-balancer=round-robin",
                "xrpc.max-frame-length=2MB",
                "xrpc.allowed-packages=com.acme.dto",
                "xrpc.client.attempt-timeout=500ms")) {
            XrpcProperties p = consumer.getBean(XrpcProperties.class);
            assertThat(p.client().timeout()).isEqualTo(Duration.ofMillis(1500));
            assertThat(p.client().attemptTimeout()).isEqualTo(Duration.ofMillis(500));
            assertThat(p.client().loadBalancer()).isEqualTo("round-robin");
            assertThat(p.maxFrameLength().toMegabytes()).isEqualTo(2);
            assertThat(consumer.getBean(RpcClient.class).allowList().isAllowed("com.acme.dto.Order"))
                    .isTrue();
        }
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.client.serializer=yaml"))
                .hasStackTraceContaining("xrpc.client.serializer")
                .hasStackTraceContaining(
                        "expected one of [fory, hessian, json, kryo, protobuf, protostuff"); // and the tests' own
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.server.port=70000"))
                .hasStackTraceContaining("xrpc.server.port");
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.client.attempt-timeout=0s"))
                .hasStackTraceContaining("xrpc.client.attempt-timeout")
                .hasStackTraceContaining("expected a duration > 0");
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.max-depth=0"))
                .hasStackTraceContaining("xrpc.max-depth")
                .hasStackTraceContaining("expected >= 1");
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.write-buffer.low-water-mark=2MB"))
                .hasStackTraceContaining("xrpc.write-buffer.high-water-mark");
        assertThatThrownBy(() -> start(Apps.Consumer.class, "xrpc.max-frame-length=1KB"))
                .hasStackTraceContaining("expected 16KB to 2GB");
    }

    @Test
    void theHostilePeerLimitsReachTheServer() throws Exception {
        try (ConfigurableApplicationContext provider = start(
                        Apps.Provider.class,
                        "xrpc.server.max-connections=1",
                        "xrpc.server.frame-timeout=2s",
                        "xrpc.max-objects-per-message=5000");
                Socket first = new Socket("127.0.0.1", port(provider))) {
            XrpcProperties p = provider.getBean(XrpcProperties.class);
            assertThat(p.server().frameTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(p.maxObjectsPerMessage()).isEqualTo(5000);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() ->
                            provider.getBean(RpcServiceExporter.class).server().connectionCount() == 1);
            try (Socket second = new Socket("127.0.0.1", port(provider))) {
                second.setSoTimeout(10_000);
                byte[] h = second.getInputStream().readNBytes(24);
                assertThat(h[3]).as("frame type GOAWAY").isEqualTo((byte) 5);
                assertThat(h[6]).as("status UNAVAILABLE").isEqualTo((byte) 7);
            }
            // Half a frame header, then nothing: cut off after the 2 s frame timeout (the default,
            // 10 s, would outlast the read timeout).
            first.setSoTimeout(8_000);
            first.getOutputStream().write(new byte[] {0x58, 0x52, 2, 1, 0}); // magic "XR", version 2, request
            assertThat(first.getInputStream().read())
                    .as("end of stream: the server closed it")
                    .isEqualTo(-1);
        }
    }

    private static int port(ConfigurableApplicationContext provider) {
        return provider.getBean(RpcServiceExporter.class).server().port();
    }

    @Test
    void xrpcEnabledFalseTurnsEverythingOff() {
        try (ConfigurableApplicationContext provider = start(Apps.Provider.class, "xrpc.enabled=false")) {
            assertThat(provider.getBeansOfType(XrpcProperties.class)).isEmpty();
        }
    }

    @Test
    void closingOneOfTwoProvidersLosesNoCallOfSixteenCallingThreads() throws Exception {
        ConfigurableApplicationContext a = start(Apps.Provider.class, "test.provider-name=a");
        try (ConfigurableApplicationContext b = start(Apps.Provider.class, "test.provider-name=b");
                ConfigurableApplicationContext consumer =
                        start(Apps.Consumer.class, "xrpc.client.load-balancer=round-robin")) {
            Greeter greeter = consumer.getBean(Apps.GreeterUser.class).greeter;
            CallLoad load = new CallLoad(16, greeter::whoAmI);
            try (load) {
                load.awaitMore("a", 300, Duration.ofSeconds(30));
                a.close();
                load.awaitMore("b", 600, Duration.ofSeconds(30));
            }
            assertThat(load.errors()).as("failed calls by error").isEmpty();
            System.out.printf(
                    "provider context closed under load: %d calls answered, 0 failed%n", load.answeredInAll());
        } finally {
            a.close();
        }
    }
}
