package io.xrpc.spring.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.DefaultPropertiesPropertySource;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Quiets ZooKeeper's and Curator's own logging, unless the application sets those levels itself:
 * they print about a hundred INFO lines when an application starts on a registry, which XRpc's own
 * log lines say in one sentence each ({@code ZooKeeper ... SUSPENDED: consumers keep their last
 * known providers}, the embedded server's start and takeover). The levels go in as Spring Boot's
 * default properties, the weakest of all sources, and none is set where the application sets
 * that logger or one above it: {@code logging.level.org.apache.zookeeper=info} in
 * {@code application.yml} brings all of ZooKeeper's lines back. With {@code embedded}, the
 * client's warning (with a stack trace) on every reconnection attempt while its server is away
 * and the server's complaint about a setting it does not need are quieted too; against a real
 * ensemble they stay, since they say why a connection fails (TLS, SASL).
 *
 * <p>Spring Boot applies {@code logging.level.*} after a {@code logback.xml}: set these loggers'
 * levels as properties, not only there.
 */
public final class XrpcLoggingDefaults implements EnvironmentPostProcessor, Ordered {
    private static final String PREFIX = "logging.level.";
    /** Loggers and the levels they get unless the application sets them. */
    static final Map<String, String> LEVELS = Map.of("org.apache.zookeeper", "warn", "org.apache.curator", "warn");
    /** The same, with {@code embedded} only. */
    static final Map<String, String> EMBEDDED_LEVELS = Map.of(
            "org.apache.zookeeper.ClientCnxn", "error",
            "org.apache.zookeeper.server.ServerCnxnFactory", "error");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        LEVELS.forEach((logger, level) -> addUnlessSet(environment, logger, level, defaults));
        if (environment.getProperty("xrpc.registry.address", "").trim().startsWith("embedded")) {
            EMBEDDED_LEVELS.forEach((logger, level) -> addUnlessSet(environment, logger, level, defaults));
        }
        if (!defaults.isEmpty()) {
            DefaultPropertiesPropertySource.addOrMerge(defaults, environment.getPropertySources());
        }
    }

    /** Adds {@code logger}'s default unless the application sets it or a logger above it. */
    private static void addUnlessSet(
            ConfigurableEnvironment environment, String logger, String level, Map<String, Object> defaults) {
        for (String name = logger; ; name = name.substring(0, name.lastIndexOf('.'))) {
            if (environment.containsProperty(PREFIX + name)) {
                return;
            }
            if (name.indexOf('.') < 0) {
                break;
            }
        }
        defaults.put(PREFIX + logger, level);
    }

    /** After the application's own configuration is loaded, so that what it sets is seen. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
