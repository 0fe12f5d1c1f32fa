package io.xrpc.registry;

import io.xrpc.common.Extension;

/**
 * Creates {@link Registry} instances for the addresses of one scheme; found with
 * {@link java.util.ServiceLoader} (list implementations in
 * {@code META-INF/services/io.xrpc.registry.RegistryProvider}).
 */
public interface RegistryProvider extends Extension {

    /** The scheme this provider serves, such as {@code zookeeper} or {@code embedded}: its name. */
    @Override
    String name();

    /** A connected registry; fails when it cannot connect within the configured timeout. */
    Registry create(RegistryConfig config);
}
