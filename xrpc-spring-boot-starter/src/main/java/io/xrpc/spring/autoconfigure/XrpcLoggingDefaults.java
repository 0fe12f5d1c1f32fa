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
 * they print about a hundred INFO lines when an application starts on a registry (and a stack
 * trace every second while a server is away), which XRpc's own log lines say in one sentence each
 * ({@code ZooKeeper ... SUSPENDED: consumers keep their last known providers}, the embedded
 * server's start and takeover). The levels go in as Spring Boot's default properties, the
 * weakest of all sources: {@code logging.level.org.apache.zookeeper=info} in
 * {@code application.yml} brings them back.
 */
public final class XrpcLoggingDefaults implements EnvironmentPostProcessor, Ordered {
    /** Loggers and the levels they get unless the application sets them. */
    static final Map<String, String> LEVELS = Map.of(
            "logging.level.org.apache.zookeeper", "warn",
            // A client without its server warns with a stack trace on every reconnection attempt.
            "logging.level.org.apache.zookeeper.ClientCnxn", "error",
            // "maxCnxns is not configured": a warning about a setting the embedded server does not need.
            "logging.level.org.apache.zookeeper.server.ServerCnxnFactory", "error",
            "logging.level.org.apache.curator", "warn");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        LEVELS.forEach((name, level) -> {
            if (!environment.containsProperty(name)) {
                defaults.put(name, level);
            }
        });
        if (!defaults.isEmpty()) {
            DefaultPropertiesPropertySource.addOrMerge(defaults, environment.getPropertySources());
        }
    }

    /** After the application's own configuration is loaded, so that what it sets is seen. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
