package io.xrpc.registry;

import io.xrpc.internal.NamedExtensions;

/** Finds the {@link RegistryProvider} for an address's scheme and creates the registry. */
public final class Registries {
    private Registries() {}

    /** A registry for {@code config}; an unknown scheme fails with the list of known ones. */
    public static Registry create(RegistryConfig config) {
        return NamedExtensions.load("registry scheme", RegistryProvider.class)
                .get(config.scheme())
                .create(config);
    }

    /** Shorthand for {@code create(RegistryConfig.builder(address).build())}. */
    public static Registry create(String address) {
        return create(RegistryConfig.builder(address).build());
    }
}
