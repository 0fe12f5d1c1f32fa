package io.xrpc.config;

import java.util.Objects;

/**
 * Which of a large service's providers one consumer calls: a deterministic aperture, as Finagle
 * has it. The providers are placed on a ring in an order every consumer computes alike (a hash of
 * each address), each taking an equal slice; the consumers of an application, which know their
 * place among one another ({@code io.xrpc.registry.PeerPosition}, from the registry or configured), take equal,
 * evenly spaced windows of the ring, each a whole number of consumer slices wide and covering at
 * least {@link #minProviders()} providers. The windows then cover every point of the ring equally
 * often, so with {@code p2c} picking points within the window (an edge provider in proportion to
 * the part of it the window covers) every provider gets the same share of calls, while each
 * consumer connects to about {@code max(minProviders, providers / consumers)} of them. A provider
 * joining or leaving moves the windows' edges by at most one provider each.
 *
 * <p>Calls fail over outside the window when no provider in it can take them (all tried, set
 * aside, or not accepting the serializer). A list of at most {@link #threshold()} providers is
 * used whole, as is any list while the position is unknown (a registry that cannot tell and none
 * configured). {@code consistent-hash} references never subset: their keys must reach the same
 * provider from every consumer. docs/REGISTRY.md has the simulation and the figures.
 */
public final class Subsetting {
    /** The fewest providers a window covers by default: p2c and failover keep a choice, and one provider lost moves a sixteenth of a consumer's calls. */
    public static final int DEFAULT_MIN_PROVIDERS = 16;
    /** Lists up to this many providers are used whole by default: connecting to all of them is cheap. */
    public static final int DEFAULT_THRESHOLD = 64;

    private static final Subsetting DEFAULTS = new Subsetting(true, DEFAULT_MIN_PROVIDERS, DEFAULT_THRESHOLD, -1, 0);
    private static final Subsetting OFF = new Subsetting(false, DEFAULT_MIN_PROVIDERS, DEFAULT_THRESHOLD, -1, 0);

    private final boolean enabled;
    private final int minProviders;
    private final int threshold;
    /** The configured place, -1 when the registry places this consumer. */
    private final int peerIndex;

    private final int peerCount;

    private Subsetting(boolean enabled, int minProviders, int threshold, int peerIndex, int peerCount) {
        if (minProviders < 1) {
            throw new IllegalArgumentException("minProviders: " + minProviders + " (expected: at least 1)");
        }
        if (threshold < 0) {
            throw new IllegalArgumentException("threshold: " + threshold + " (expected: at least 0)");
        }
        this.enabled = enabled;
        this.minProviders = minProviders;
        this.threshold = threshold;
        this.peerIndex = peerIndex;
        this.peerCount = peerCount;
    }

    /** The default: an aperture of at least 16 providers over lists of more than 64, placed by the registry. */
    public static Subsetting defaults() {
        return DEFAULTS;
    }

    /** Every consumer uses every provider (connections grow with consumers x providers). */
    public static Subsetting off() {
        return OFF;
    }

    /** An aperture covering at least {@code minProviders} providers, over lists of more than {@code threshold}. */
    public static Subsetting aperture(int minProviders, int threshold) {
        return new Subsetting(true, minProviders, threshold, -1, 0);
    }

    /**
     * The same, with this consumer's place given rather than read from the registry: a
     * StatefulSet's ordinal and its replica count, for example. Every consumer of the
     * application must be given its own index and the same count.
     */
    public Subsetting position(int index, int count) {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException(
                    "subsetting position " + index + " of " + count + " (expected: 0 <= index < count)");
        }
        return new Subsetting(enabled, minProviders, threshold, index, count);
    }

    public boolean enabled() {
        return enabled;
    }

    public int minProviders() {
        return minProviders;
    }

    public int threshold() {
        return threshold;
    }

    /** Whether this consumer's place is configured ({@link #peerIndex()} of {@link #peerCount()}) rather than the registry's. */
    public boolean positioned() {
        return peerIndex >= 0;
    }

    /** The configured place, -1 when the registry gives it. */
    public int peerIndex() {
        return peerIndex;
    }

    /** How many consumers the configured place is among, 0 when the registry gives it. */
    public int peerCount() {
        return peerCount;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Subsetting s
                && s.enabled == enabled
                && s.minProviders == minProviders
                && s.threshold == threshold
                && s.peerIndex == peerIndex
                && s.peerCount == peerCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, minProviders, threshold, peerIndex, peerCount);
    }

    @Override
    public String toString() {
        if (!enabled) {
            return "off";
        }
        return "aperture(min " + minProviders + ", over " + threshold
                + (peerIndex < 0 ? ", placed by the registry)" : ", " + peerIndex + " of " + peerCount + ")");
    }
}
