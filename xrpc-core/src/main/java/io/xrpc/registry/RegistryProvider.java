package io.xrpc.registry;

/**
 * Creates {@link Registry} instances for the addresses of one scheme; found with
 * {@link java.util.ServiceLoader} (list implementations in
 * {@code META-INF/services/io.xrpc.registry.RegistryProvider}).
 */
public interface RegistryProvider {

    /** The scheme this provider serves, such as {@code zookeeper} or {@code embedded}. */
    String scheme();

    /** Ties between providers of one scheme go to the higher priority; built-ins use 0. */
    default int priority() {
        return 0;
    }

    /** A connected registry; fails when it cannot connect within the configured timeout. */
    Registry create(RegistryConfig config);
}
