package io.xrpc.compress;

import io.xrpc.internal.NamedExtensions;

/** The compressors found with {@link java.util.ServiceLoader}, by name and by header id. */
public final class CompressorRegistry {
    private final NamedExtensions<Compressor> byName;
    private final Compressor[] byId = new Compressor[256];

    private CompressorRegistry(NamedExtensions<Compressor> byName) {
        this.byName = byName;
        for (Compressor c : byName.all()) {
            Compressor clash = byId[c.id() & 0xFF];
            if (clash != null) {
                throw new IllegalStateException("compressor id " + c.id() + " is used by both " + clash.name() + " ("
                        + NamedExtensions.describe(clash) + ") and " + c.name() + " (" + NamedExtensions.describe(c)
                        + "): each compressor needs an id of its own");
            }
            byId[c.id() & 0xFF] = c;
        }
        if (byId[IdentityCompressor.ID] == null) {
            byId[IdentityCompressor.ID] = IdentityCompressor.INSTANCE;
        }
    }

    public static CompressorRegistry load() {
        return new CompressorRegistry(NamedExtensions.load("compressor", Compressor.class));
    }

    /** The compressor called {@code name}; an unknown name fails with the list of known ones. */
    public Compressor get(String name) {
        return byName.get(name);
    }

    /** The compressor with header id {@code id}, or {@code null}. */
    public Compressor byId(byte id) {
        return byId[id & 0xFF];
    }
}
