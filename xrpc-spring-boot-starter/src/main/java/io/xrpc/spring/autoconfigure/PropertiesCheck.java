package io.xrpc.spring.autoconfigure;

import io.xrpc.client.Extensions;
import io.xrpc.config.Hedging;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.ProtocolConstants;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Checks {@code xrpc.*} as bound, before anything is built from it: each bad value fails start-up
 * as an {@link InvalidConfigurationPropertyValueException} naming the property, the value and what
 * is expected, which Spring Boot's failure analyzer turns into its report.
 */
final class PropertiesCheck {
    private PropertiesCheck() {}

    static void check(XrpcProperties p) {
        // Checked against what ServiceLoader finds, so an application's own serializer (or
        // compressor, balancer, cluster) is a valid name as soon as it is on the classpath.
        oneOf("xrpc.client.serializer", p.client().serializer(), Extensions.serializers());
        oneOf("xrpc.client.compressor", p.client().compressor(), Extensions.compressors());
        oneOf("xrpc.client.load-balancer", p.client().loadBalancer(), Extensions.loadBalancers());
        oneOf("xrpc.client.cluster", p.client().cluster(), Extensions.clusters());
        positive("xrpc.client.timeout", p.client().timeout());
        if (p.client().attemptTimeout() != null) {
            positive("xrpc.client.attempt-timeout", p.client().attemptTimeout());
        }
        atLeast("xrpc.client.retries", p.client().retries(), 0);
        if (p.client().retryBudget().maxTokens() != 0) {
            try {
                ReferenceOptions.builder()
                        .retryBudget(
                                p.client().retryBudget().maxTokens(),
                                p.client().retryBudget().tokenRatio());
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException(
                        "xrpc.client.retry-budget", p.client().retryBudget(), e.getMessage());
            }
        }
        if (!p.client().hedging().isBlank() && !p.client().hedging().equals("none")) {
            try {
                Hedging.parse(p.client().hedging());
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException(
                        "xrpc.client.hedging", p.client().hedging(), e.getMessage());
            }
        }
        atLeast("xrpc.client.connections-per-endpoint", p.client().connectionsPerEndpoint(), 1);
        atLeast("xrpc.client.max-pending-calls", p.client().maxPendingCalls(), 1);
        if (p.server().port() < 0 || p.server().port() > 65535) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.server.port", p.server().port(), "expected 0-65535");
        }
        atLeast("xrpc.server.io-threads", p.server().ioThreads(), 0);
        atLeast("xrpc.server.executor-threads", p.server().executorThreads(), 1);
        atLeast("xrpc.server.executor-queue", p.server().executorQueue(), 0);
        if (p.server().callThreads().unavailableReason() != null) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.server.call-threads",
                    p.server().callThreads(),
                    p.server().callThreads().unavailableReason() + " (expected: platform on this JVM)");
        }
        notNegative("xrpc.server.unregister-delay", p.server().unregisterDelay());
        notNegative("xrpc.server.shutdown-grace", p.server().shutdownGrace());
        positive("xrpc.heartbeat-interval", p.heartbeatInterval());
        positive("xrpc.registry.session-timeout", p.registry().sessionTimeout());
        positive("xrpc.registry.connect-timeout", p.registry().connectTimeout());
        if (p.maxFrameLength().toBytes() < ProtocolConstants.MIN_FRAME_LENGTH
                || p.maxFrameLength().toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.max-frame-length", p.maxFrameLength(), "expected 16KB to 2GB");
        }
        atLeast("xrpc.max-objects-per-message", p.maxObjectsPerMessage(), 1);
        atLeast("xrpc.max-depth", p.maxDepth(), 1);
        bytes("xrpc.write-buffer.low-water-mark", p.writeBuffer().lowWaterMark(), 1);
        bytes(
                "xrpc.write-buffer.high-water-mark",
                p.writeBuffer().highWaterMark(),
                p.writeBuffer().lowWaterMark().toBytes());
        positive("xrpc.server.frame-timeout", p.server().frameTimeout());
        atLeast("xrpc.server.max-connections", p.server().maxConnections(), 1);
        atLeast("xrpc.server.max-connections-per-address", p.server().maxConnectionsPerAddress(), 0);
        notNegative("xrpc.server.authentication-timeout", p.server().authenticationTimeout());
        if (p.server().maxRequestMemory() != null
                && p.server().maxRequestMemory().toBytes() < 16 * 1024) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.server.max-request-memory", p.server().maxRequestMemory(), "expected >= 16KB");
        }
        atLeast("xrpc.server.max-authentication-failures", p.server().maxAuthenticationFailures(), 0);
        if (p.client().maxPendingRequestBytes() == null
                || p.client().maxPendingRequestBytes().toBytes() < 1024) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.client.max-pending-request-bytes", p.client().maxPendingRequestBytes(), "expected >= 1KB");
        }
        XrpcProperties.OutlierDetection od = p.client().outlierDetection();
        atLeast("xrpc.client.outlier-detection.consecutive-failures", od.consecutiveFailures(), 0);
        positive("xrpc.client.outlier-detection.base-ejection", od.baseEjection());
        positive("xrpc.client.outlier-detection.max-ejection", od.maxEjection());
        if (od.maxEjection().compareTo(od.baseEjection()) < 0) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.client.outlier-detection.max-ejection",
                    od.maxEjection(),
                    "expected >= xrpc.client.outlier-detection.base-ejection");
        }
        if (p.registry().emptyListGrace() != null) {
            notNegative("xrpc.registry.empty-list-grace", p.registry().emptyListGrace());
        }
        if (!(p.registry().shrinkGuard() >= 0 && p.registry().shrinkGuard() <= 1)) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.registry.shrink-guard", p.registry().shrinkGuard(), "expected 0 to 1 (0 turns it off)");
        }
        positive("xrpc.registry.shrink-guard-window", p.registry().shrinkGuardWindow());
        if (p.registry().embeddedPort() != null
                && (p.registry().embeddedPort() < 1 || p.registry().embeddedPort() > 65535)) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.registry.embedded-port", p.registry().embeddedPort(), "expected 1 to 65535");
        }
        if (p.compressThreshold().toBytes() < 0 || p.compressThreshold().toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.compress-threshold", p.compressThreshold(), "expected 0 to 2GB");
        }
        String rp = p.registry().rootPath();
        if (rp == null || !rp.startsWith("/") || rp.length() < 2 || rp.endsWith("/")) {
            throw new InvalidConfigurationPropertyValueException(
                    "xrpc.registry.root-path", rp, "expected /name with no trailing /");
        }
    }

    private static void oneOf(String name, String value, Set<String> allowed) {
        if (value == null || !allowed.contains(value)) {
            throw new InvalidConfigurationPropertyValueException(
                    name, value, "expected one of " + new TreeSet<>(allowed));
        }
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected a duration > 0");
        }
    }

    private static void notNegative(String name, Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected a duration >= 0");
        }
    }

    private static void bytes(String name, DataSize value, long min) {
        if (value == null || value.toBytes() < min || value.toBytes() > Integer.MAX_VALUE) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected " + min + "B to 2GB");
        }
    }

    private static void atLeast(String name, int value, int min) {
        if (value < min) {
            throw new InvalidConfigurationPropertyValueException(name, value, "expected >= " + min);
        }
    }
}
