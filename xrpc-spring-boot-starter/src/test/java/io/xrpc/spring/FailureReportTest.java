package io.xrpc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.net.ServerSocket;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/**
 * Every start-up failure XRpc knows ends in Spring Boot's report (description and action), as a
 * bad property value does, not in a stack of nested bean creation exceptions. Before: the right
 * sentence, five BeanCreationExceptions deep, and no action.
 */
class FailureReportTest {
    @RegisterExtension
    final TestZooKeeper zk = new TestZooKeeper();

    /** Kryo cannot carry a Pattern (it would reach into java.base's private fields). */
    public record Rule(String name, Pattern pattern) {}

    public interface Rules {
        Rule rule(String name);
    }

    static class RulesUser {
        @RpcReference(url = "127.0.0.1:1", serializer = "kryo")
        Rules rules;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(RulesUser.class)
    static class RulesConsumer {}

    @BeforeEach
    void clear() {
        RecordingAppender.clear();
    }

    /** Starts {@code app}, which must fail, and returns Spring Boot's failure report. */
    private static String report(Class<?> app, String... properties) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(app)
                        .web(WebApplicationType.NONE)
                        .properties("spring.main.banner-mode=off", "xrpc.server.host=127.0.0.1", "xrpc.server.port=0")
                        .properties(properties)
                        .run()
                        .close())
                .isInstanceOf(RuntimeException.class);
        List<String> reports = RecordingAppender.messages(Level.ERROR, "APPLICATION FAILED TO START");
        assertThat(reports).as("Spring Boot's failure report").hasSize(1);
        String report = reports.get(0);
        System.out.println(report);
        return report;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void anUnreachableRegistry() throws Exception {
        int port = freePort();
        assertThat(report(
                        Apps.Provider.class,
                        "xrpc.registry.address=zookeeper://127.0.0.1:" + port,
                        "xrpc.registry.connect-timeout=1s"))
                .contains("cannot connect to ZooKeeper at 127.0.0.1:" + port + " within 1000 ms")
                .contains("Action:")
                .contains("point xrpc.registry.address at a running ZooKeeper");
    }

    @Test
    void aRegistryThatRequiresAuthentication() {
        assertThat(report(Apps.Provider.class, "xrpc.registry.address=" + zk.getConnectString()))
                .contains("ended the session of anonymous at its first request")
                .contains("set xrpc.registry.username and xrpc.registry.password");
    }

    /**
     * Before: an unset ${ZK_PASSWORD} went to ZooKeeper as the literal text "${ZK_PASSWORD}", a
     * password anyone reading the configuration knows, and the application started.
     */
    @Test
    void aPasswordPlaceholderThatDidNotResolve() {
        assertThat(report(
                        Apps.Provider.class,
                        "xrpc.registry.address=" + zk.getConnectString(),
                        "xrpc.registry.username=xrpc",
                        "xrpc.registry.password=${XRPC_TEST_UNSET_VARIABLE_8f2c}"))
                .contains("xrpc.registry.password")
                .contains("did not resolve")
                .contains("environment variable");
        RecordingAppender.clear();
        assertThat(report(
                        Apps.Provider.class,
                        "xrpc.registry.address=" + zk.getConnectString(),
                        "xrpc.registry.username=xrpc",
                        "xrpc.registry.password= "))
                .contains("xrpc.registry.password")
                .contains("it is empty");
    }

    @Test
    void anUnknownRegistryScheme() {
        assertThat(report(Apps.Provider.class, "xrpc.registry.address=etcd://127.0.0.1:2379"))
                .contains("registry scheme")
                .contains("etcd")
                .contains("Action:")
                .contains("needs the module that provides it");
    }

    @Test
    void aMissingSslBundle() {
        assertThat(report(Apps.Provider.class, "xrpc.registry.address=", "xrpc.server.ssl.bundle=nope"))
                .contains("XRpc cannot use the SSL bundle xrpc.server.ssl.bundle=nope")
                .contains("Define the bundle under spring.ssl.bundle.pem.nope");
    }

    @Test
    void anUnreadableCertificate() {
        // Without Boot's SSL metrics, which would read the bundle first and fail with Boot's own trace.
        String report = report(
                Apps.Provider.class,
                "xrpc.registry.address=",
                "xrpc.server.ssl.bundle=p",
                "spring.autoconfigure.exclude="
                        + "org.springframework.boot.micrometer.metrics.autoconfigure.ssl.SslMetricsAutoConfiguration",
                "spring.ssl.bundle.pem.p.keystore.certificate=file:/nonexistent/cert.pem",
                "spring.ssl.bundle.pem.p.keystore.private-key=file:/nonexistent/key.pem");
        assertThat(report)
                .contains("XRpc cannot use the SSL bundle xrpc.server.ssl.bundle=p")
                .contains("/nonexistent/cert.pem")
                .contains("files that exist and can be read");
    }

    @Test
    void aTypeTheSerializerCannotCarry() {
        assertThat(report(RulesConsumer.class, "xrpc.registry.address="))
                .contains("kryo cannot carry java.util.regex.Pattern")
                .contains("xrpc.type-check: warn");
    }
}
